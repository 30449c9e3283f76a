"""The declared minimum versions are the tested ones (issue 29 item 3): ``.ci/constraints-minimum.txt``
pins every lower bound ``pyproject.toml`` declares, exactly, and ``.ci/run`` runs the platform's
tests against it before the README's test command (which must stay the last, whole run)."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / ".ci" / "constraints-minimum.txt"
CI_RUN = ROOT / ".ci" / "run"


def _declared() -> dict[str, str]:
    """Every ``>=`` bound of the runtime and ``dev`` requirements (what the CI run installs)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for line in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        req = Requirement(line)
        lower = [s.version for s in req.specifier if s.operator == ">="]
        assert lower, f"{line!r} declares no minimum: give it one (>=) so CI can test it"
        bounds[canonicalize_name(req.name)] = lower[0]
    return bounds


def _pinned() -> dict[str, str]:
    pins = {}
    for raw in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{raw!r}: the constraints file pins exact versions (name==version)"
            pins[canonicalize_name(name)] = version.strip()
    return pins


def _same(a: str, b: str) -> bool:
    """``3.0`` and ``3.0.0`` name the same release."""

    def parts(v: str) -> list[int]:
        nums = [int(p) for p in v.split(".")]
        while nums and nums[-1] == 0:
            nums.pop()
        return nums

    return parts(a) == parts(b)


def test_every_declared_minimum_is_pinned_in_the_constraints_file() -> None:
    declared, pinned = _declared(), _pinned()
    missing = sorted(set(declared) - set(pinned))
    assert not missing, (
        f"{CONSTRAINTS.name} lacks {missing}: pin each at its pyproject.toml minimum"
    )
    wrong = {n: (declared[n], pinned[n]) for n in declared if not _same(declared[n], pinned[n])}
    assert not wrong, f"pyproject.toml minimum vs {CONSTRAINTS.name} pin differ: {wrong}"


def test_ci_runs_the_minimum_versions_first_and_the_readme_command_last() -> None:
    script = CI_RUN.read_text(encoding="utf-8")
    minimum = script.index('PIP_CONSTRAINT="$PWD/.ci/constraints-minimum.txt"')
    tests = script.index("|| min_rc=$?")
    readme = script.index('bash -c "$TEST_CMD"')
    assert minimum < tests < readme, "the minimum-version run goes before the README's command"
    # after the README's command, only the minimum run's verdict: its failure fails CI
    after = script[readme:].splitlines()[1:]
    assert [line.strip() for line in after if line.strip()][-2:] == ['exit "$min_rc"', "fi"]


def _load_proto_package(tmp_path: Path, version: str) -> None:
    """referee/_proto/__init__.py, run beside a bot_pb2.py made by protobuf ``version``."""
    folder = tmp_path / version
    folder.mkdir()
    init = folder / "__init__.py"
    init.write_text(
        (ROOT / "referee" / "_proto" / "__init__.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (folder / "bot_pb2.py").write_text(
        f"# -*- coding: utf-8 -*-\n# Protobuf Python Version: {version}\n"
    )
    spec = importlib.util.spec_from_file_location(f"proto_copy_{version.replace('.', '_')}", init)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_code_generated_for_a_newer_protobuf_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        ImportError, match=r"generated for protobuf 99\.0\.0 but protobuf .*arena\.build_protos"
    ):
        _load_proto_package(tmp_path, "99.0.0")
    _load_proto_package(tmp_path, "4.25.0")  # the oldest protobuf allowed: any runtime runs it
