"""Issue #37 item 1 without a browser: every option of real games (random play of the engines,
each game and mode) names board keys (:mod:`web.targets`) that the seat's board (the /play
page's templates, drawn from the seat's observation) marks with ``data-target``; the options
that need a place on the board (a card, a market slot, a module and side, a cell, a hex, a die)
have one, so a person never needs the option list to play."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from flask import render_template

from referee import registry
from referee.engine import Option
from referee.solenia.geometry import SHIP_ROW, pos_of
from web.play import seat_board
from web.targets import any_order, option_targets

TARGET = re.compile(r'data-target="([^"]*)"')

#: Option kinds (the id before ":") that have no place on the board, by game: a yes/no, a
#: pass, an end, paying nothing — they name nothing the board draws and stay buttons of the
#: board's action bar. Everything else is a place: Orbital's year income too (the rulebook's
#: player picks a colour of their own station: its colour count, ``colour:<seat>:<colour>``),
#: its High-Risk crew count (the k-th unused crew token), Black Angel's ``eslot`` (the space
#: beside a colour's ejected missions), Solenia's payments (the store's resources, any order),
#: discards (the card in hand) and ship moves (the cell the ship sails to).
BUTTONS = {
    "black_angel": {"A", "B", "none", "nocard", "noplace", "noboost", "done", "pass"},
    "orbital": {"pass"},
    "solenia": {"pay:0-0-0-0"},
}


def _kind(option: str) -> str:
    if option == "put:store" or option == "ship:new":
        return option
    if option.startswith("fix:d"):
        return "fix:d"
    if option == "pay:0-0-0-0":
        return option
    return option.split(":")[0]


def _preferred(game: str, option: Option) -> bool:
    """What the test's player picks when it can (else at random), so that a whole game reaches
    the rare decisions: Solenia's cities, tiles and the technology that lets one resource pay
    for another (several ways to pay: a payment to click), Black Angel's advanced tiles pushed
    in by the arrows (an ejected one needs a space)."""
    if game == "solenia":
        return (option.id.startswith("tech1") and "pay " in option.label) or "city" in option.label \
            or option.id.startswith(("pay:", "tile:", "ship:", "gain:", "discard:"))
    if game == "black_angel":
        return option.id.startswith(("take:a", "arrow", "tile:", "put:"))
    return False


def _play(state: Any, game: str, rng: random.Random) -> None:
    options = state.legal_options()
    preferred = [o for o in options if _preferred(game, o)]
    state.apply(rng.choice(preferred or options).id)


#: Each game and mode, by a seed whose whole game (played by :func:`_play`) reaches the rare
#: decisions named (option kinds): the test fails if one is not reached, so a change of the
#: engines or of the player that loses them is seen, not silently untested.
CONFIGS = [
    ("black_angel", 2, "base", 3, ()),
    ("black_angel", 3, "advanced", 23, ("eslot",)),
    ("black_angel", 2, "advanced", 0, ("rc",)),  # a die recoloured by a boost tile (rc<colour><use>)
    ("black_angel", 1, "solo", 3, ()),
    ("orbital", 2, "standard", 2, ("crew", "income")),
    ("orbital", 3, "standard", 3, ()),
    ("orbital", 1, "competitive", 3, ()),
    ("solenia", 2, "summer", 3, ()),
    ("solenia", 2, "winter-tech", 3, ("ship",)),
    ("solenia", 3, "winter-tech", 5, ("pay", "discard")),
    ("solenia", 1, "summer", 1, ("discard",)),
]


def _of(kind: str, rare: str) -> bool:
    """Is an option of ``kind`` one of the ``rare`` decisions ("rc": any recoloured die's use)?"""
    return kind == rare or (rare == "rc" and kind.startswith("rc"))


@pytest.mark.parametrize(("game", "players", "variant", "seed", "rare"), CONFIGS)
def test_every_option_with_a_place_is_marked_on_the_seats_board(
    app, game: str, players: int, variant: str, seed: int, rare: tuple[str, ...]  # noqa: ANN001
) -> None:
    rng = random.Random(seed)
    state = registry.new_game(game, players, seed, variant)
    seen: dict[str, int] = {}
    reached: set[str] = set()
    placed = 0
    decisions = 0
    while not state.is_over() and decisions < 400:
        seat = state.to_move()
        options = state.legal_options()
        kinds = {o.id.split(":")[0] for o in options}
        if isinstance(seat, int) and (decisions % 2 == 0 or len(options) > 4 or any(_of(k, r) for k in kinds for r in rare)):
            view = seat_board(state.observation(seat), game, seat, players)
            with app.test_request_context():
                html = render_template(f"boards/{game}.html", view=view, final_scores=None, to_move=seat,
                                       seats=[{"name": f"player {i + 1}", "last_move": None} for i in range(players)])
            keys = {k for found in TARGET.findall(html) for k in found.split()}
            for o in options:
                parts = option_targets(game, seat, o.id, o.label, state.observation(seat))
                missing = [p for p in parts if p not in keys]
                assert not missing, (o.id, o.label, missing)
                if parts:
                    placed += 1
                    reached.add(o.id.split(":")[0])
                else:
                    seen[_kind(o.id)] = seen.get(_kind(o.id), 0) + 1
        _play(state, game, rng)
        decisions += 1
    # every option without a place is of a kind that is a button by nature
    assert set(seen) <= BUTTONS[game], seen
    assert placed
    # the rare decisions were reached, each with its place on the board
    missing = [r for r in rare if not any(_of(k, r) for k in reached)]
    assert not missing, (missing, sorted(reached))


def test_a_build_is_the_card_then_the_place_and_unknown_options_stay_buttons() -> None:
    # Orbital's build: which card of the hand, then which free exit (rulebook 모듈 건설)
    assert option_targets("orbital", 0, "build:45:1.3") == ["card:45", "exit:1:W"]
    assert option_targets("orbital", 1, "act:2") == ["module:1:2"]
    assert option_targets("orbital", 0, "tgt:1:3") == ["module:1:3"]
    # a Black Angel ship is found on the hex its label names; the seat's own dice and grid
    space = {"space": {"strips": [{"hexes": [{"hex": 7, "label": "strip 2 hex 3"},
                                             {"hex": 8, "label": "strip 2 hex 4", "black_angel": True}]}]}}
    assert option_targets("black_angel", 0, "ship:1", "move your ship at strip 2 hex 3", space) == ["hex:7"]
    assert option_targets("black_angel", 0, "ship:new", "launch a new ship", space) == ["hex:8"]
    assert option_targets("black_angel", 2, "use:1") == ["die:2:1"]
    assert option_targets("black_angel", 2, "put:4") == ["grid:2:4"]
    # Solenia's supply tiles are numbered within their row: the label says which
    assert option_targets("solenia", 0, "tile:2", "night tile #30 (2 wood; 4 pts)") == ["tile:night:2"]
    # a repair of a damaged supply die (by its colour), the debris storage, a winter level of
    # the row the bought tile goes to
    assert option_targets("black_angel", 1, "fix:d2", "repair a damaged green die") == ["sdmg:green"]
    assert option_targets("black_angel", 1, "put:store", "put the debris in storage") == ["store:1"]
    pending = {"pending": {"tile": {"id": 29, "kind": "night"}}}
    assert option_targets("solenia", 1, "slot:2B", "level 2B (end: …)", pending) == ["row:1:night:3"]
    assert option_targets("solenia", 1, "slot:2B", "level 2B (end: …)", {}) == []
    # a payment is the resources of the seat's store, one click each (any order: ANY_ORDER);
    # paying nothing names nothing
    assert option_targets("solenia", 1, "pay:2-0-1-0") == ["res:1:wood", "res:1:wood", "res:1:wheat"]
    assert any_order("solenia", "pay:2-0-1-0") and not any_order("solenia", "card:3")
    # a card discarded is the card in hand; the ship's move is the cell it sails to
    assert option_targets("solenia", 0, "discard:7") == ["card:7"]
    ship = {"ship": {"col": 2, "pos": pos_of(2, SHIP_ROW)}}
    assert option_targets("solenia", 0, "ship:2", "", ship) == [f"cell:{pos_of(4, SHIP_ROW)}"]
    # Orbital's High-Risk Project: k crew in is the k-th unused crew token; Black Angel's space
    # for an ejected advanced tile; a die recoloured by a boost tile, then its use
    assert option_targets("orbital", 1, "crew:3") == ["crew:1:3"]
    assert option_targets("black_angel", 0, "eslot:2") == ["eslot:0:2"]
    grid = {"seats": [{"grid": [None, {"boost": "recolour", "boost_side_up": True}]}]}
    assert option_targets("black_angel", 0, "rc1act:3", "1x: …", grid) == ["grid:0:1", "action:3"]
    for game, option in [("orbital", "pass"), ("black_angel", "nocard"), ("solenia", "ship:2"),
                         ("solenia", "pay:0-0-0-0"), ("toy", "card:1"), ("orbital", "build:x")]:
        assert option_targets(game, 0, option) == [], option


@pytest.mark.parametrize(("game", "players", "variant", "kinds"), [
    ("black_angel", 3, "advanced", ("fix:d", "put:store")),
    ("solenia", 2, "winter-tech", ("slot:",)),
])
def test_repairs_debris_and_winter_levels_are_places_on_the_board(
    app, game: str, players: int, variant: str, kinds: tuple[str, ...]  # noqa: ANN001
) -> None:
    """Issue #37 item 1: a damaged supply die to repair, the debris storage, a winter level of
    the personal board are clicked where the board draws them, not buttons under it."""
    found: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed)
        state = registry.new_game(game, players, seed, variant)
        for _ in range(600):
            if state.is_over() or len(found) == len(kinds):
                break
            seat, options = state.to_move(), state.legal_options()
            wanted = [o for o in options if o.id.startswith(kinds)]
            if wanted and isinstance(seat, int):
                view = seat_board(state.observation(seat), game, seat, players)
                with app.test_request_context():
                    html = render_template(f"boards/{game}.html", view=view, final_scores=None, to_move=seat,
                                           seats=[{"name": f"player {i + 1}", "last_move": None} for i in range(players)])
                keys = {k for f in TARGET.findall(html) for k in f.split()}
                for o in wanted:
                    parts = option_targets(game, seat, o.id, o.label, state.observation(seat))
                    assert parts and all(p in keys for p in parts), (o.id, o.label, parts)
                    found.add(next(k for k in kinds if o.id.startswith(k)))
            state.apply(rng.choice(options).id)
    assert found == set(kinds), found
