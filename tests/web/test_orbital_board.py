"""The Orbital replay board: a real Orbital game, step by step, drawn as stations."""

from __future__ import annotations

import re

import pytest
from flask import render_template

from arena.db import Match, session_scope
from tests.web.seed import add_engine_match

SCORE = re.compile(r'data-testid="score-(\d+)">(-?[0-9.]+)<')


@pytest.fixture(scope="module")
def orbital_match(site) -> str:
    return add_engine_match(site[0], "orbital", 3, 42)


def test_every_step_draws_the_stations_and_the_end_shows_the_stored_scores(client, site, orbital_match) -> None:
    with session_scope(site[0]) as s:
        m = s.get(Match, orbital_match)
        last = len(m.record["decisions"])
        stored = [seat.score for seat in m.seats]
    step_size = max(1, last // 20)
    for index in list(range(0, last, step_size)) + [last]:
        r = client.get(f"/matches/{orbital_match}/steps/{index}")
        assert r.status_code == 200, index
        html = r.data.decode()
        assert "board-orbital" in html and 'class="station-map"' in html
        assert html.count('class="station-map"') == 3
        assert '{"' not in html and "{'" not in html
        assert len(SCORE.findall(html)) == 3
    shown = {int(seat): float(v) for seat, v in SCORE.findall(html)}
    assert [shown[i] for i in range(3)] == stored
    assert "Final score" in html and "Year" in html and "Market" in html
    assert html.count('class="cell module c-') >= 3 and 'class="link link-' in html  # modules and connections
    assert "<svg class=\"station-map" not in html


@pytest.mark.parametrize(
    "view",
    [{}, {"stations": [{}]}, {"stations": [{"modules": [{"x": 0, "y": 0, "parent": 5}]}], "market": [{}]},
     {"opponent_tracks": [{"red": 1}], "hands": [[]]}],
)
def test_orbital_board_tolerates_missing_keys(app, view: dict) -> None:
    with app.test_request_context():
        html = render_template("boards/orbital.html", view=view, seats=[], final_scores=None, to_move=None)
    assert "board-orbital" in html


def test_station_grid_places_tiles_joins_entrances_and_finds_free_exits() -> None:
    from web.orbital_board import station_grid

    station = {"modules": [
        {"index": 0, "x": 0, "y": 0, "parent": -1, "colour": "red", "exits": ["N", "E", "S", "W"],
         "card": {"name": "Basic Core"}, "crew": 1},
        {"index": 1, "x": 1, "y": 0, "parent": 0, "colour": "green", "exits": ["E", "S"],
         "card": {"name": "Hydroponics"}, "end": True},
        {"index": 2, "x": 0, "y": -1, "parent": 0, "colour": "blue", "exits": ["N"],
         "card": {"name": "Research Lab"}, "damage": 2},
    ]}
    grid = station_grid(station)
    assert (grid.columns, grid.rows) == (2, 2)
    core, hydro, lab = grid.tiles
    assert (core.column, core.row, hydro.column, hydro.row, lab.column, lab.row) == (1, 2, 2, 2, 1, 1)
    assert core.entrance is None and hydro.entrance == "W" and lab.entrance == "S"
    assert core.free_exits == ("S", "W")  # north and east are built on
    assert hydro.free_exits == ("E", "S")
    assert lab.free_exits == ()  # a damaged module takes no new connections
    assert grid.cells == [[lab, None], [core, hydro]]
    assert lab.summary == "Research Lab: science module, 2 damage tokens"
    assert core.summary.startswith("Basic Core: core module, 1 crew placed")
    assert grid.width_class == "span-2"
