"""What a seat may see (engine contract; black-angel.ko.txt [4] A1 알림: played cards are face down)."""

from __future__ import annotations

import json

import pytest

from referee.black_angel.state import BlackAngelState
from referee.engine import IllegalAction
from tests.black_angel.helpers import play, started


def test_observation_hides_other_hands_slots_and_decks() -> None:
    s = started(3)
    s.slots[1][2] = s.hand_m[1].pop()
    obs = s.observation(0)
    text = json.dumps(obs)
    assert "hand" in obs["seats"][0] and "hand" not in obs["seats"][1]
    assert obs["seats"][1]["hand_missions"] == 2 and obs["seats"][1]["slots_used"][2] is True
    assert "slots" not in obs["seats"][1]
    assert "decks" not in obs and "rng" not in text
    assert obs["ravager_deck"] == len(s.rav_deck)


def test_solo_observation_hides_hals_next_card() -> None:
    s = started(1, "solo")
    obs = s.observation(0)
    assert obs["hal"]["deck"] == 12 and obs["hal"]["revealed"] is None
    assert "hal" in s.spectator_view()["decks"]


def test_spectator_view_shows_everything_with_names() -> None:
    s = started(2)
    view = s.spectator_view()
    assert all("hand" in seat and "slots" in seat for seat in view["seats"])
    assert view["actions"][0]["kind"] == "discover" and view["actions"][0]["colour"] == "orange"
    hexes = [h for st in view["space"]["strips"] for h in st["hexes"]]
    assert sum(h["black_angel"] for h in hexes) == 1
    assert {h["type"] for h in hexes} <= {"orange", "gray", "green", "asteroid", "ravager", "spes"}
    json.dumps(view)


def test_illegal_option_changes_nothing() -> None:
    s = started(2)
    before = json.dumps(s.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction):
        s.apply("act:9")
    assert json.dumps(s.to_json(), sort_keys=True) == before


def test_round_trip_and_clone_independence() -> None:
    s = started(4, "advanced")
    play(s, "A")
    copy = BlackAngelState.from_json(json.loads(json.dumps(s.to_json())))
    assert copy.to_json() == s.to_json()
    twin = s.clone()
    twin.apply(twin.option_ids()[0])
    assert copy.to_json() == s.to_json()
