"""Issue 29 item 5: the Black Angel schema is exact for the advanced rules' rare decisions.

Random playouts seldom reach a recoloured mission activation or an ejected advanced tile (3 of
7,098 observations in 114 games), so these tests drive a real game there: they play seeded
random options up to the decision, then set the board so that the rule applies (a recolour
boost tile and an active mission of another colour; a grid full of advanced tiles). Each check
is run twice: against the published schema (it passes), and against the schema as it was
before the fix (the kit must fail), so the test is known to have teeth.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from referee import observation_schema as osch
from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.black_angel.state import BlackAngelState
from referee.conformance import (
    ConformanceError,
    check_observation_schema,
    check_option_grammar,
    check_spectator_schema,
)
from referee.rng import Rng

RECOLOUR_TILE = 12  # a technology tile whose boost side is "recolour"


def _play_until(state: BlackAngelState, seed: int, done: Any) -> BlackAngelState:
    pick = Rng(seed)
    while not done(state):
        assert not state.is_over(), "the game ended before the decision was reached"
        ids = state.option_ids()
        state.apply(ids[pick.below(len(ids))])
    return state


def _recolour_mission_state() -> BlackAngelState:
    """Advanced rules, a die being used, a recolour boost ready and an active mission of
    another colour on the mover's own hex: the engine offers ``rc<N>mis:<hex>``."""
    state = _play_until(BlackAngelState.new(2, 4, "advanced"), 4,
                        lambda s: s.phase == "a_use" and B.die_face(s.ctx["die"]) > 0)
    seat, colour = state.seat, B.die_colour(state.ctx["die"])
    assert D.TILE[RECOLOUR_TILE]["boost"] == "recolour"
    state.grid[seat][0], state.boost[seat][0] = RECOLOUR_TILE, 1
    mission = next(m for m in D.MISSION if D.MISSION_COLOUR[m] != colour
                   and D.MISSION[m]["kind"] == "active" and m not in state.hand_m[seat])
    hex_free = next(h for h in range(35) if h not in state.cards)
    state.cards[hex_free] = (mission, seat)
    return state


def _eject_slot_state() -> BlackAngelState:
    """A tile pushed into a grid full of advanced tiles ejects one while two or more spaces
    for it are free: the decision ``eject_slot``, with ``ctx.ejected`` set."""
    state = _play_until(BlackAngelState.new(2, 4, "advanced"), 4, lambda s: s.phase == "insert")
    seat = state.seat
    state.grid[seat] = [t for t in state.a_deck[:9]]
    assert len(state.grid[seat]) == 9 and all(D.is_advanced(t) for t in state.grid[seat])
    state.apply(state.option_ids()[0])
    assert state.phase == "eject_slot"
    return state


@pytest.fixture
def schema_before_the_fix(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The observation schema as published before issue 29: no ``rc<N>mis`` form, no
    ``ejected`` in the decision in progress (validators rebuilt from it, and afterwards)."""
    published = osch.load_schema

    def old(game: str, kind: str = "observation") -> dict[str, Any]:
        schema = copy.deepcopy(published(game, kind))
        if game == "black_angel" and kind == "observation":
            schema["x-option-ids"] = [f for f in schema["x-option-ids"]
                                      if f["pattern"] != "^rc[0-9]+mis:[0-9]+$"]
            for ctx in (schema["properties"]["context"], schema["properties"]["raw"]["properties"]["ctx"]):
                del ctx["properties"]["ejected"]
        return schema

    osch._validator.cache_clear()
    osch._id_patterns.cache_clear()
    monkeypatch.setattr(osch, "load_schema", old)
    yield
    monkeypatch.undo()
    osch._validator.cache_clear()
    osch._id_patterns.cache_clear()


def test_recoloured_mission_ids_match_a_published_form() -> None:
    state = _recolour_mission_state()
    ids = state.option_ids()
    assert any(i.startswith("rc") and ":" in i and i.split(":")[0].endswith("mis") for i in ids), ids
    check_option_grammar(state, 0, ids)
    check_observation_schema(state, 0)


def test_kit_fails_on_a_schema_without_the_recolour_mission_form(schema_before_the_fix: None) -> None:
    state = _recolour_mission_state()
    with pytest.raises(ConformanceError, match=r"option id 'rc[0-9]mis:[0-9]+' matches no documented form"):
        check_option_grammar(state, 0, state.option_ids())


def test_eject_slot_observations_validate_strictly() -> None:
    state = _eject_slot_state()
    seat = state.seat
    observation = state.observation(seat)
    assert observation["context"]["ejected"] == observation["raw"]["ctx"]["ejected"] >= 200
    check_observation_schema(state, 0)  # every seat, strictly
    check_spectator_schema(state, 0)
    check_option_grammar(state, 0, state.option_ids())
    state.apply(state.option_ids()[0])
    check_observation_schema(state, 1)


def test_kit_fails_on_a_schema_that_forbids_ejected(schema_before_the_fix: None) -> None:
    state = _eject_slot_state()
    with pytest.raises(ConformanceError, match=r"at context: Additional properties are not allowed \('ejected'"):
        check_observation_schema(state, 0)
