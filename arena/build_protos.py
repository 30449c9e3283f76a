"""Compile ``protos/*.proto`` into ``referee/_proto`` with grpcio-tools.

The generated code lives in the referee, the lowest Python layer (``protos/`` -> ``referee/`` ->
``arena/`` -> ``web/``): the referee speaks the bot protocol (``bot.proto``) and reaches dial-in
bots through the relay (``arena.proto``'s ``DialinRelay``), and everything above imports it
from there. Both files go into the one package because ``arena.proto`` imports ``bot.proto``.

Run by the package build (setup.py) and by hand with ``python -m arena.build_protos``.

The files are compiled with ``protos/`` itself as the include path, so every descriptor carries
the name the files are published under (``bot.proto``, ``arena.proto``, as in buf.yaml's module
and ``protos/contract/v1.json``): server reflection then tells a client the same file names it
would compile from ``protos/``, and a bot author's own ``bot_pb2`` built from the published
file can share a process (and the default descriptor pool) with the SDK's.

protoc derives Python module paths from file names, so code compiled that way imports itself
as top-level ``bot_pb2``. Two lines per module name that path; :func:`_place` moves exactly
those into the ``referee._proto`` package (and fails the build if protoc's output no longer has
them, rather than writing code that cannot import).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "protos"
OUT_PACKAGE = "referee/_proto"
PACKAGE = OUT_PACKAGE.replace("/", ".")


def _place(text: str, generated: str, modules: list[str]) -> str:
    """``text`` of the generated module ``generated`` with its imports of ``modules`` (the
    sibling ``x_pb2`` modules) and its message classes' module name moved into :data:`PACKAGE`."""
    changed = text
    for module in modules:
        changed = re.sub(rf"^import {module} as ", f"from {PACKAGE} import {module} as ", changed, flags=re.M)
    stem = generated.removesuffix(".py")
    if stem.endswith("_pb2"):
        top = f"_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, '{stem}', _globals)"
        if top not in changed:
            raise SystemExit(f"protoc output of {generated} has no {top!r}; update arena/build_protos.py")
        changed = changed.replace(top, top.replace(f"'{stem}'", f"'{PACKAGE}.{stem}'"))
    if re.search(r"^import \w+_pb2 as ", changed, flags=re.M):
        raise SystemExit(f"{generated} still imports a generated module at top level")
    return changed


def build(root: Path = ROOT) -> list[Path]:
    import grpc_tools
    from grpc_tools import protoc  # build-time dependency

    protos = sorted((root / "protos").glob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {root / 'protos'}")
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    out_dir = root / OUT_PACKAGE
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        args = [
            "grpc_tools.protoc",
            f"-I{root / 'protos'}",
            f"-I{well_known}",
            f"--python_out={scratch}",
            f"--pyi_out={scratch}",
            f"--grpc_python_out={scratch}",
        ] + [p.name for p in protos]
        code = protoc.main(args)
        if code != 0:
            raise SystemExit(f"protoc failed with exit code {code}")
        modules = [f"{p.stem}_pb2" for p in protos]
        for generated in sorted(os.listdir(scratch)):
            text = (Path(scratch) / generated).read_text(encoding="utf-8")
            (out_dir / generated).write_text(_place(text, generated, modules), encoding="utf-8")
    return protos


if __name__ == "__main__":
    built = build()
    print(f"compiled {len(built)} proto file(s) into {OUT_PACKAGE}", file=sys.stderr)
