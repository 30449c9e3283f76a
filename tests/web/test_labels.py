"""The player-language helpers of web/labels.py, over every value the engines' data hold."""

from __future__ import annotations

import re

import pytest

from referee.black_angel import data as D
from referee.black_angel.decisions import PHASES as BA_PHASES
from referee.orbital.state import PHASE_NAMES as ORB_PHASES
from referee.solenia.fields import PHASE_NAMES as SOL_PHASES
from web import labels

IDENTIFIER = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\b[a-z]+\d*:[a-z0-9:_-]+\b")


def _clean(text: str) -> None:
    assert text and text != "—", text
    assert not IDENTIFIER.search(text), text


@pytest.mark.parametrize(("game", "phases"), [("black_angel", BA_PHASES), ("solenia", SOL_PHASES), ("orbital", ORB_PHASES)]
)
def test_every_engine_phase_has_a_player_name(game: str, phases) -> None:  # noqa: ANN001
    names = {p: labels.phase_name(game, p) for p in phases}
    for name in names.values():
        _clean(name)
    assert set(phases) <= set(labels.PHASES[game])  # named by the table, not by the fallback
    assert labels.phase_name(game, "over") == "game over"


def test_unknown_phase_still_reads_as_words() -> None:
    assert labels.phase_name("black_angel", "new_fancy:phase") == "new fancy phase"
    assert labels.phase_name("no_such_game", None) == "—"


def test_every_black_angel_tile_mission_and_hal_card_reads_as_words() -> None:
    for tile in D.TILE.values():
        _clean(labels.ba_effect(tile["standard"]))
        if tile.get("boost"):
            _clean(labels.ba_boost(tile["boost"]))
    for adv in D.ADV.values():
        _clean(labels.ba_counts(adv["counts"]))
    for m in D.MISSION.values():
        _clean(labels.ba_effect(m["reward"]))
        if m.get("effect"):
            _clean(labels.ba_effect(m["effect"]))
        if m.get("ejection"):
            _clean(labels.ba_ejection(m["ejection"]))
    for effect in set(D.RAV_EFFECT.values()):
        _clean(labels.ba_ravager(effect))
        assert effect in labels.RAVAGER_EFFECTS  # named by the table, not by the fallback
    for card in D.HAL_CARDS:
        _clean(labels.ba_hal_card(card))


def test_black_angel_effects_in_detail() -> None:
    assert labels.ba_effect({"vp": 2, "draw": "orange"}) == "2 VP · draw an orange mission"
    assert labels.ba_effect({"resource": 1, "vp": 1}) == "+1 resource · 1 VP"
    assert labels.ba_effect({"ship": 2}) == "+2 ships"
    assert labels.ba_effect({"worker": "gray"}) == "a robot to the gray workstation"
    assert labels.ba_boost("plus1:command") == "+1 on command"
    assert labels.ba_boost("recolour") == "use a die as another colour"
    assert labels.ba_ejection({"per": "flat", "vp_each": 5, "max": 5}) == "5 VP"
    assert (
        labels.ba_ejection({"per": "colour_cards", "colour": "gray", "vp_each": 2, "max": 8})
        == "2 VP per gray mission in space (max 8)"
    )
    card = {"top": {"colour": "gray", "action": "repair:clockwise"}, "bottom": {"colour": "green"}}
    assert labels.ba_hal_card(card) == "top: gray, repair (clockwise); bottom: green"


def test_plain_turns_identifiers_in_engine_text_into_words() -> None:
    assert labels.plain("the Ravager on action 5: lose_resource") == (
        "the Ravager on action 5: lose a resource"
    )
    assert labels.plain("Hal uses a gray 1 on action 3 (repair:clockwise)") == (
        "Hal uses a gray 1 on action 3 (repair clockwise)"
    )
    assert labels.plain("boost: plus1:command") == "boost: +1 on command"
    # prose, times and ratios stay as they are
    for text in ("player 1 takes tile 30: 2 VP", "at 12:30", "a 3:1 trade", "sequence A"):
        assert labels.plain(text) == text
    # the engines count seats from 0; a person reads players from 1, as the rulebooks do
    assert labels.plain("seat 0 takes tile 30; Seat 3 passes") == "player 1 takes tile 30; Player 4 passes"
    assert labels.plain("your seat passes") == "your seat passes"
    # Orbital's and Solenia's "P2" already counts from 1: the same words, the same number
    assert labels.plain("P2 recovers its <1> card; target P1's Airlock") == (
        "player 2 recovers its <1> card; target player 1's Airlock")
    assert labels.plain("P2P and MP3 stay") == "P2P and MP3 stay"


def test_wrap_name_escapes_and_breaks_only_after_word_separators() -> None:
    assert str(labels.wrap_name("black_angel_greedy")) == "black_<wbr>angel_<wbr>greedy"
    assert str(labels.wrap_name("<b>x</b>")) == "&lt;b&gt;<wbr>x&lt;/<wbr>b&gt;"
    assert str(labels.wrap_name("alpha")) == "alpha"
