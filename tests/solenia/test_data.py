"""The data files keep every count the rulebook states (solenia.ko.txt 1. 게임 구성물)."""

from __future__ import annotations

import json
from pathlib import Path

from referee.solenia.data import (
    BOARD_SIDES,
    CARD_VALUE,
    DECK_SIZE,
    TECH_LEVEL,
    TILE_KIND,
)

DATA = Path(__file__).resolve().parents[2] / "referee" / "solenia" / "data"


def _entries(node, path="$"):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _entries(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _entries(v, f"{path}[{i}]")


def test_every_list_entry_says_where_it_came_from() -> None:
    for file in DATA.glob("*.json"):
        data = json.loads(file.read_text(encoding="utf-8"))
        assert data.get("source") in ("rulebook", "designed"), file.name
        for path, node in _entries(data):
            for key, value in node.items():
                if isinstance(value, list) and value and isinstance(value[0], dict) and key != "sides":
                    for i, entry in enumerate(value):
                        assert entry.get("source") in ("rulebook", "designed"), f"{file.name} {path}.{key}[{i}]"


def test_component_counts() -> None:
    # 1. 게임 구성물: 분리형 게임판 5개(양면), 보급품 타일 48개, 우주선 카드 16장, 기술 타일 24개
    assert len(BOARD_SIDES) == 5 and all(len(b) == 2 for b in BOARD_SIDES)
    assert len(TILE_KIND) == 48 and TILE_KIND.count(0) == 24
    assert DECK_SIZE == 16 and set(CARD_VALUE) == {0, 1, 2}
    assert len(TECH_LEVEL) == 24 and set(TECH_LEVEL) == {1, 3}
