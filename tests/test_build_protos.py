"""arena/build_protos.py (issue 29 item 5): the generated descriptors carry the published file
names (``bot.proto``, ``arena.proto``, as in protos/ and protos/contract/v1.json) and the
generated modules still import each other inside ``referee._proto``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena import build_protos
from referee._proto import arena_pb2, bot_pb2, bot_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]


def test_descriptors_carry_the_published_file_names() -> None:
    published = {f["name"] for f in json.loads((ROOT / "protos" / "contract" / "v1.json").read_text())["file"]}
    assert bot_pb2.DESCRIPTOR.name == "bot.proto" and arena_pb2.DESCRIPTOR.name == "arena.proto"
    assert {bot_pb2.DESCRIPTOR.name, arena_pb2.DESCRIPTOR.name} <= published
    assert bot_pb2.ActRequest.__module__ == "referee._proto.bot_pb2"
    assert bot_pb2_grpc.bot__pb2 is bot_pb2  # the stub module imports its sibling in the package


def test_a_build_from_scratch_gives_the_same_modules(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    build_protos.build(tmp_path)
    made = sorted(p.name for p in (tmp_path / "referee" / "_proto").iterdir())
    assert made == sorted(p.name for p in (ROOT / "referee" / "_proto").glob("*_pb2*"))
    for name in made:
        text = (tmp_path / "referee" / "_proto" / name).read_text()
        assert text == (ROOT / "referee" / "_proto" / name).read_text(), name
        assert "import bot_pb2 as" not in text.replace("from referee._proto import bot_pb2 as", "")


def test_protoc_output_it_does_not_know_stops_the_build() -> None:
    with pytest.raises(SystemExit, match="update arena/build_protos.py"):
        build_protos._place("DESCRIPTOR = ...\n", "bot_pb2.py", ["bot_pb2"])
    with pytest.raises(SystemExit, match="still imports a generated module"):
        build_protos._place("import other_pb2 as o\n", "bot_pb2_grpc.py", ["bot_pb2"])
