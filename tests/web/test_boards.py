"""The per-game replay renderers: real Solenia and Black Angel games, step by step, plus the
generic fallback and tolerance of views with missing keys."""

from __future__ import annotations

import re

import pytest
from flask import render_template

from arena.db import Match, session_scope
from tests.web.seed import add_engine_match

SCORE = re.compile(r'data-testid="score-(\d+)">(-?[0-9.]+)<')


@pytest.fixture(scope="module")
def engine_matches(site) -> dict[str, str]:
    url, _ = site
    return {
        "solenia": add_engine_match(url, "solenia", 2, 42),
        "black_angel": add_engine_match(url, "black_angel", 3, 42),
    }


def _stored(url: str, match_id: str) -> tuple[int, list[float]]:
    with session_scope(url) as s:
        m = s.get(Match, match_id)
        return len(m.record["decisions"]), [seat.score for seat in m.seats]


@pytest.mark.parametrize("game", ["solenia", "black_angel"])
def test_every_step_renders_a_picture_and_the_end_shows_the_stored_scores(
    game: str, client, site, engine_matches
) -> None:
    url, _ = site
    match_id = engine_matches[game]
    last, stored = _stored(url, match_id)
    step_size = max(1, last // 25)
    for index in list(range(0, last, step_size)) + [last]:
        r = client.get(f"/matches/{match_id}/steps/{index}")
        assert r.status_code == 200, index
        html = r.data.decode()
        assert f"board-{game.replace('_', '-')}" in html
        assert '<svg class="hexes' in html and "<polygon" in html  # the map is drawn
        assert '{"' not in html and "{'" not in html  # no JSON or dict dump
        assert len(SCORE.findall(html)) == len(stored)
    shown = {int(seat): float(v) for seat, v in SCORE.findall(html)}
    assert [shown[i] for i in range(len(stored))] == stored
    assert "Final score" in html


def test_solenia_board_shows_map_market_and_players(client, engine_matches) -> None:
    html = client.get(f"/matches/{engine_matches['solenia']}/steps/30").data.decode()
    drawn = html.split('<ul class="legend')[0]  # the legend's swatches reuse the classes
    assert drawn.count('class="cell t-') == 35  # 5 boards x 7 cells
    assert "Tile market" in html and "the ship" in html
    assert html.count('class="player seat-') == 2


def test_black_angel_board_shows_actions_space_market_and_crews(client, engine_matches) -> None:
    html = client.get(f"/matches/{engine_matches['black_angel']}/steps/40").data.decode()
    assert html.count('class="action c-') == 6
    assert "Space" in html and "Technology market" in html and "Ship grid" in html
    assert html.count('class="player seat-') == 3


@pytest.mark.parametrize(
    "template",
    ["boards/solenia.html", "boards/black_angel.html", "boards/toy.html", "boards/generic.html"],
)
@pytest.mark.parametrize(
    "view",
    [
        {},
        {"boards": [{"cells": [{"row": 0}]}], "players_info": [{}], "market": {"day": [None]}},
        {"space": {"strips": [{"hexes": [{}]}]}, "seats": [{"grid": [None]}], "actions": [{}]},
        {"hands": [[1]], "scores": [2]},
    ],
)
def test_renderers_tolerate_missing_keys(app, template: str, view: dict) -> None:
    with app.test_request_context():
        html = render_template(template, view=view, seats=[], to_move=None, final_scores=None)
    assert '<div class="board' in html


def test_unknown_game_uses_the_generic_key_value_layout(app) -> None:
    view = {
        "round": 3,
        "players": [{"name": "<b>x</b>", "coins": 4}, {"name": "y", "coins": 1}],
        "deck": [1, 2, 3],
        "flags": {"over": False, "nested": {"deep": [{"a": 1}]}},
    }
    with app.test_request_context():
        html = render_template(
            "_step.html",
            step=type(
                "S", (), {"decision": None, "to_move": 0, "index": 0, "prompt": "", "events": ()}
            )(),
            seats=[],
            last=5,
            result=False,
            board_template="boards/no_such_game.html",
            view=view,
            to_move=0,
            final_scores=[1.0, 2.0],
        )
    assert "board-generic" in html
    assert re.search(r"<h3>round</h3>\s*3\s*</section>", html)
    assert "<dt>over</dt><dd>no</dd>" in html
    assert '<th scope="col">coins</th>' in html  # a list of records becomes a table
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "1, 2, 3" in html
    assert 'data-testid="score-1">2<' in html


CHOICE = re.compile(r'class="choice" data-option-id="([^"]*)"[^>]*>([^<]*)<')


@pytest.mark.parametrize("game", ["solenia", "black_angel"])
def test_event_log_entries_carry_the_step_box_labels(game: str, client, engine_matches) -> None:
    match_id = engine_matches[game]
    page = client.get(f"/matches/{match_id}").data.decode()
    log = CHOICE.findall(page[page.index('id="event-log"') :])
    last = int(re.search(r'data-last="(\d+)"', page).group(1))
    assert len(log) == last  # every decision has its label, none falls back to its id
    for index in range(1, last + 1, max(1, last // 20)):
        step = client.get(f"/matches/{match_id}/steps/{index}").data.decode()
        assert CHOICE.findall(step) == [log[index - 1]]
        option_id, label = log[index - 1]
        assert label and label != option_id


@pytest.mark.parametrize("game", ["solenia", "black_angel"])
def test_a_replay_step_marks_the_move_that_led_there_on_the_board(game: str, client, engine_matches) -> None:
    """Issue #37 item 6: the replay draws the same board as /play, with the last-move mark (in
    the mover's player panel) of the decision that led to the step; the opening has none."""
    html = client.get(f"/matches/{engine_matches[game]}/steps/0").data.decode()
    assert "data-last-move" not in html
    html = client.get(f"/matches/{engine_matches[game]}/steps/5").data.decode()
    assert html.count("data-last-move=\"4\"") == 1, html.count("data-last-move")
    # the board carries its places' keys (inert: nothing is a choice on a replay)
    assert "data-target=" in html and "data-choice" not in html
