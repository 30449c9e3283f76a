"""The layers point one way, arena/'s rooms too, and no package imports itself in a circle
(issues 29 and 36).

The rules are import-linter contracts in pyproject.toml (``[tool.importlinter]``): the layers
``protos/`` (``referee._proto``) -> ``referee/`` -> ``arena/`` -> ``web/``, the bots and the
benchmarks; inside ``arena/`` its rooms, each importing only the rooms below it (the SDK and the
toolkit environments without the server, the database and Celery; the scheduling formats
independent of each other); ``web/`` never reaching the gRPC server, the CLI or the queue.
``lint-imports`` checks them over every import of every file (a lazy import inside a function
counts as much as one at the top); this test runs it, so the README's test command covers them.

What no reading of the source can see (an import built at run time) is checked by running: the
referee imports, every module of it, in a process where ``arena`` and ``web`` cannot be imported
at all, and the SDK where the server, the database, the queue and numpy cannot.

Circles: grimp (the graph import-linter is built on) lists every import circle between modules;
there is none in arena/, web/, benchmarks/ or sample_bots/. The referee's game engines keep the
ones they were written with (listed below): the list may only shrink.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "web", "referee", "benchmarks", "sample_bots")

#: What may stay at the top level of arena/: the package's public face (docs/architecture.md).
#: A new module belongs in a room: add it there (or, for a new concern, add a room and give it
#: its place in the "rooms" contract of pyproject.toml).
PUBLIC_FACE = {"__init__", "__main__", "_moved", "build_protos", "quoting", "shortcuts"}

#: The import circles of the referee's engines as they were written (each engine's modules
#: import each other's helpers at call time); referee/ is outside issue 36. New ones fail, and
#: so does a listed one that has gone (take it off the list).
REFEREE_CIRCLES = [
    {f"referee.black_angel.{m}" for m in (
        "actions", "board", "hal", "sequence_a", "sequence_b", "space", "turns")},
    {f"referee.black_angel.{m}" for m in ("observed", "state", "views")},
    {f"referee.orbital.{m}" for m in ("observed", "state", "views")},
    {f"referee.solenia.{m}" for m in ("observed", "state")},
]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_the_import_contracts_are_kept() -> None:
    """``lint-imports`` over pyproject.toml's contracts: each one KEPT."""
    run = subprocess.run(
        [sys.executable, "-c",
         "from importlinter.cli import lint_imports_command; lint_imports_command(['--no-cache'])"],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    assert "0 broken" in run.stdout, run.stdout[-2000:]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def test_every_room_of_arena_has_its_place_in_the_contract() -> None:
    """A subpackage of arena/ missing from the rooms contract would be checked by nothing."""
    rooms = next(c for c in _config()["contracts"] if c["id"] == "rooms")
    placed = {name.strip() for layer in rooms["layers"] for name in layer.split("|")}
    packages = {p.parent.name for p in (ROOT / "arena").glob("*/__init__.py")}
    assert packages == placed, f"rooms not in the contract: {sorted(packages - placed)}; " \
                               f"in the contract but gone: {sorted(placed - packages)}"


def test_the_top_level_of_arena_is_its_public_face() -> None:
    modules = {p.stem for p in (ROOT / "arena").glob("*.py")}
    assert modules <= PUBLIC_FACE, (
        f"{sorted(modules - PUBLIC_FACE)} at the top of arena/: put each in its room "
        "(docs/architecture.md says which)")


def import_circles(*packages: str) -> list[set[str]]:
    """Every set of modules that import each other in a circle (strongly connected components
    of grimp's import graph with more than one module), imports inside functions included.
    An import under ``if TYPE_CHECKING:`` is not one: it never runs, and it is how a module
    names a type of the module that imports it without a circle at run time."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[set[str]] = []
    for start in sorted(edges):  # Tarjan's algorithm, iterative (no recursion limit)
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(component)
    return circles


def test_no_import_circles() -> None:
    circles = import_circles(*PACKAGES)
    ours = [sorted(c) for c in circles if not all(m.startswith("referee.") for m in c)]
    assert ours == [], f"modules importing each other in a circle: {ours}"
    referee = [c for c in circles if all(m.startswith("referee.") for m in c)]
    new = [sorted(c) for c in referee if c not in REFEREE_CIRCLES]
    gone = [sorted(c) for c in REFEREE_CIRCLES if c not in referee]
    assert new == [] and gone == [], f"new circles in the referee: {new}; gone (unlist): {gone}"


def test_the_circle_finder_finds_circles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The finder sees a circle closed by an import inside a function, and nothing in a chain."""
    pkg = tmp_path / "circled"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from circled import b\n")
    (pkg / "b.py").write_text("def f():\n    from circled import a\n    return a\n")
    (pkg / "c.py").write_text("from circled import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_circles("circled") == [{"circled.a", "circled.b"}]


#: Imports every module of a package with the named top-level packages unimportable.
_ALONE = """
import importlib, importlib.abc, pkgutil, sys

BLOCKED = {blocked!r}

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"imported what it must run without: {{name}}")
        return None

sys.meta_path.insert(0, Blocked())
package = importlib.import_module({package!r})
for module in pkgutil.walk_packages(package.__path__, {package!r} + "."):
    importlib.import_module(module.name)
"""


@pytest.mark.parametrize(("package", "blocked"), [
    ("referee", ("arena", "web")),
    ("arena.sdk", ("arena.server", "arena.db", "arena.workers", "arena.envs", "web", "celery",
                   "kombu", "sqlalchemy", "flask", "numpy")),
])
def test_a_layer_imports_without_what_it_must_run_without(package: str, blocked: tuple) -> None:
    run = subprocess.run([sys.executable, "-c", _ALONE.format(package=package, blocked=blocked)],
                         cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
