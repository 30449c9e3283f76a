"""The protocol's contract files: buf lint (STANDARD + COMMENTS, exceptions justified in
buf.yaml) is clean, nothing breaks the committed v1 contract, and the fault vocabulary is the
same in both .proto files, the referee, the API and the docs (issue 13, item 4).

buf comes from npm (@bufbuild/buf); .ci/run installs it into .ci/tools (the tests that need it
are skipped, with the command to install it, where it is missing)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from referee._proto import arena_pb2, bot_pb2
from referee.faults import (
    LEGACY,
    NUMBERS,
    REASONS,
    REFUSAL_KINDS,
    SERVER_ERROR,
    canonical,
    proto_number,
)

ROOT = Path(__file__).resolve().parent.parent
LOCAL_BUF = ROOT / ".ci" / "tools" / "node_modules" / ".bin" / "buf"
BUF = str(LOCAL_BUF) if LOCAL_BUF.exists() else shutil.which("buf")
needs_buf = pytest.mark.skipif(
    BUF is None, reason="buf is not installed: npm install --prefix .ci/tools @bufbuild/buf (CI does)"
)


def buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([BUF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@needs_buf
def test_buf_lint_is_clean() -> None:
    result = buf("lint")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_buf
def test_nothing_breaks_the_v1_contract() -> None:
    result = buf("breaking", "--against", "protos/contract/v1.json")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_buf
@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("  uint32 seat = 8;\n", "", "seat"),  # a field removed from ActRequest
        ("  string option_id = 1;", "  string option_id = 9;", "option_id"),  # renumbered
        ("rpc WhoAmI(", "rpc WhoIsIt(", "WhoAmI"),  # a call renamed
    ],
    ids=["removed-field", "renumbered-field", "renamed-call"],
)
def test_buf_breaking_catches_a_break(tmp_path: Path, old: str, new: str, says: str) -> None:
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    for proto in (tmp_path / "protos").glob("*.proto"):
        text = proto.read_text()
        if old in text:
            proto.write_text(text.replace(old, new, 1))
            break
    else:
        pytest.fail(f"{old!r} is in no .proto file")
    result = buf("breaking", "--against", "protos/contract/v1.json", cwd=tmp_path)
    assert result.returncode != 0 and says in result.stdout, result.stdout + result.stderr


def _fault_names(enum) -> list[str]:  # noqa: ANN001
    return [v.name.removeprefix("FAULT_REASON_").lower() for v in enum.DESCRIPTOR.values if v.number]


def test_one_fault_vocabulary_in_both_protos_and_the_referee() -> None:
    assert _fault_names(bot_pb2.FaultReason) == list(REASONS)
    assert _fault_names(arena_pb2.FaultReason) == list(REFUSAL_KINDS)
    assert set(REFUSAL_KINDS) == {*REASONS, SERVER_ERROR} == set(NUMBERS)
    # One numbering in both enums; server_error's number is never a seat's fault.
    assert arena_pb2.FaultReason.Value("FAULT_REASON_SERVER_ERROR") == NUMBERS[SERVER_ERROR]
    assert NUMBERS[SERVER_ERROR] not in bot_pb2.FaultReason.values() and proto_number(SERVER_ERROR) == 0
    for name in REASONS:
        assert proto_number(name) == bot_pb2.FaultReason.Value("FAULT_REASON_" + name.upper())
        assert proto_number(name) == arena_pb2.FaultReason.Value("FAULT_REASON_" + name.upper())
    # Refusal.kind's comment lists exactly the kinds that occur.
    text = (ROOT / "protos" / "arena.proto").read_text()
    listed = text[text.index("message Refusal {"):text.index("string kind = 1;")]
    assert re.findall(r'"([a-z_]+)"', listed) == list(REFUSAL_KINDS)


def test_old_names_are_migrated_when_read() -> None:
    assert canonical("illegal_move") == "illegal_option" and canonical("error") == SERVER_ERROR
    assert all(canonical(new) == new for new in REFUSAL_KINDS)
    assert set(LEGACY.values()) <= set(REFUSAL_KINDS)


@pytest.mark.parametrize("doc", ["docs/referee.md", "docs/bot-authors-guide.md"])
def test_the_docs_name_every_fault_and_no_old_name(doc: str) -> None:
    text = (ROOT / doc).read_text()
    for name in REASONS:
        assert f"`{name}`" in text, f"{doc} does not name the fault `{name}`"
    # An old name appears only where the docs say what it became.
    for old, new in LEGACY.items():
        for at in (m.start() for m in re.finditer(f"`{old}`", text)):
            assert f"`{new}`" in text[max(0, at - 80):at + 80], f"{doc} still uses the old name `{old}`"
