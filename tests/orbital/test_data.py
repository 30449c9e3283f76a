"""The data files: the counts the rulebook states, a mark on every entry, every named card."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from referee.orbital.data import (
    CARD_COLOUR,
    CARD_IS_EVENT,
    CARD_NAME,
    COLOURS,
    EVENT_EFFECT,
    MODULE_COUNT,
)

DATA = Path(__file__).resolve().parents[2] / "referee" / "orbital" / "data"


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_counts_follow_the_components_list() -> None:
    # 구성물: 모듈 카드 83장, 이벤트 카드 36장, 업그레이드 코어 모듈 카드 5장
    assert MODULE_COUNT == 83 and len(CARD_NAME) - MODULE_COUNT == 36
    assert not any(CARD_IS_EVENT[:83]) and all(CARD_IS_EVENT[83:])
    colours = Counter(CARD_COLOUR[c] for c in range(83))
    assert set(colours) == set(range(6)) and min(colours.values()) >= 12
    cores = _load("cores.json")["cards"]
    assert sorted(c["colour"] for c in cores) == sorted(["green", "blue", "yellow", "purple", "orange"])
    assert COLOURS == ("red", "green", "yellow", "orange", "blue", "purple")


def test_every_entry_is_marked() -> None:
    for name in ("modules.json", "events.json", "cores.json"):
        for entry in _load(name)["cards"]:
            assert entry["source"] in ("rulebook", "designed"), entry
    for key, entry in _load("rules.json").items():
        assert entry["source"] in ("rulebook", "designed"), key


def test_every_named_card_exists() -> None:
    # 1인 규칙 and 게임의 주요 개념 name these cards
    events = {"Meteor Storm", "Quiet Year", "Insider Contact", "Reinforcements Arrive", "Economic Crisis",
              "Crew Rotation", "Cold War", "High-Risk Project"}
    modules = {"Command HQ", "Military Command", "Workshop", "Observatory", "Airlock", "Robot Arm", "Weapon Platform"}
    names = set(CARD_NAME)
    assert events <= names and modules <= names
    for entry in _load("events.json")["cards"] + _load("modules.json")["cards"]:
        if entry["name"] in events | modules:
            assert entry["name_source"] == "rulebook"
    assert len({EVENT_EFFECT[c] for c in range(83, 119)}) == 14
