"""Compile ``protos/*.proto`` into ``arena/_proto`` with grpcio-tools.

Run by the package build (setup.py) and by hand with ``python -m arena.build_protos``. The proto
files are mapped onto the ``arena/_proto`` import path so the generated modules import each
other as ``arena._proto.x_pb2`` rather than as top-level modules.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "protos"
OUT_PACKAGE = "arena/_proto"


def build(root: Path = ROOT) -> list[Path]:
    import grpc_tools
    from grpc_tools import protoc  # build-time dependency

    protos = sorted((root / "protos").glob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {root / 'protos'}")
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{OUT_PACKAGE}={root / 'protos'}",
        f"-I{well_known}",
        f"--python_out={root}",
        f"--pyi_out={root}",
        f"--grpc_python_out={root}",
    ] + [f"{OUT_PACKAGE}/{p.name}" for p in protos]
    # protoc resolves virtual paths against -I mappings; run from root so outputs land in place.
    import os

    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = protoc.main(args)
    finally:
        os.chdir(cwd)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    return protos


if __name__ == "__main__":
    built = build()
    print(f"compiled {len(built)} proto file(s) into {OUT_PACKAGE}", file=sys.stderr)
