"""The layers point one way: ``protos/`` -> ``referee/`` -> ``arena/`` -> ``web/`` (issue 29 item 1).

A module may import from its own layer and the layers below it, never from one above: the
referee (game engines, the match runner, how bots are hosted, dialled and relayed, the generated
bot-protocol code) runs without the platform, and the platform without the web front end.
Every ``.py`` file under a layer is parsed, so an import inside a function (a lazy import)
counts as much as one at the top, and so does ``importlib.import_module("...")`` with a
literal name. And the referee is imported, every module of it, in a process where ``arena`` and
``web`` cannot be imported at all: what no reading of the source can see (an import built at run
time) fails there.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Each layer and the top-level packages it must never import (the layers above it).
FORBIDDEN = {
    "referee": ("arena", "web"),
    "arena": ("web",),
}


def imported_modules(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Every absolute module name ``source`` imports, with its line: ``import x``, ``from x
    import y`` anywhere in the file, and ``importlib.import_module("x")`` / ``__import__("x")``
    with a literal name. Relative imports stay inside their own package and are left out."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def violations(layer_dir: Path, forbidden: tuple[str, ...]) -> list[str]:
    """``file:line imports module`` for every import under ``layer_dir`` of a forbidden package."""
    bad = []
    for path in sorted(layer_dir.rglob("*.py")):
        for line, module in imported_modules(path.read_text(encoding="utf-8"), str(path)):
            if module.split(".")[0] in forbidden:
                bad.append(f"{path.relative_to(layer_dir.parent)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_a_layer_above_it(layer: str) -> None:
    assert (ROOT / layer / "__init__.py").is_file()
    assert violations(ROOT / layer, FORBIDDEN[layer]) == []


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The check fails on each way of importing upwards, and passes on the layer's own imports."""
    layer = tmp_path / "referee"
    layer.mkdir()
    (layer / "fine.py").write_text(
        "import grpc\nfrom referee import rng\nfrom . import engine\nfrom referee._proto import bot_pb2\n"
        "import arenas_of_mine\n"
    )
    (layer / "top.py").write_text("import arena.protocol\n")
    (layer / "nested").mkdir()
    (layer / "nested" / "lazy.py").write_text(
        "def f():\n    from arena import dialin\n    return dialin\n"
    )
    (layer / "dynamic.py").write_text("import importlib\nM = importlib.import_module('web.app')\n")
    assert violations(layer, FORBIDDEN["referee"]) == [
        "referee/dynamic.py:2 imports web.app",
        "referee/nested/lazy.py:2 imports arena",
        "referee/top.py:1 imports arena.protocol",
    ]


#: Imports every module of the referee with ``arena`` and ``web`` unimportable.
_REFEREE_ALONE = """
import importlib, importlib.abc, pkgutil, sys

class Above(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("arena", "web"):
            raise ImportError(f"a layer above the referee was imported: {name}")
        return None

sys.meta_path.insert(0, Above())
import referee
for module in pkgutil.walk_packages(referee.__path__, "referee."):
    importlib.import_module(module.name)
"""


def test_the_referee_imports_without_the_layers_above() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", _REFEREE_ALONE], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
