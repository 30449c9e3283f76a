"""The wording defects of issue 27, each at the place that produced it, and the glossary page.

Engines word their event lines and option labels; the site's templates word the boards; the CLI
words ``arena games``; the leaderboard explains its badges. Each test asserts the new words.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from click.testing import CliRunner
from flask import render_template

from arena.cli.games import games_command
from arena.evaluation.ratings import PROVISIONAL_SIGMA
from referee import registry
from referee.black_angel import board as B
from referee.black_angel import data as D
from referee.rng import Rng
from web import glossary
from web.replay import reworded, same_events


def _black_angel_lines(seeds: range) -> tuple[list[str], list[str]]:
    """Every event line and every option label of a few seeded random Black Angel games."""
    events: list[str] = []
    labels: list[str] = []
    for seed in seeds:
        state = registry.new_game("black_angel", 3, seed, "base")
        rng = Rng(seed)
        while not state.is_over():
            options = state.legal_options()
            labels.extend(o.label for o in options)
            events.extend(state.apply(options[rng.below(len(options))].id))
    return events, labels


@pytest.fixture(scope="module")
def black_angel_lines() -> tuple[list[str], list[str]]:
    return _black_angel_lines(range(3))


def test_black_angel_draws_take_an_before_a_vowel(black_angel_lines) -> None:  # noqa: ANN001
    events, _ = black_angel_lines
    draws = [e for e in events if re.search(r"draws an? \w+ mission", e)]
    assert draws
    assert not [e for e in draws if re.search(r"\ba [aeiou]", e)], draws
    assert any("draws an orange mission" in e for e in draws)
    assert any("draws a gray mission" in e or "draws a green mission" in e for e in draws)


def test_black_angel_tile_activations_name_effects_in_player_words(black_angel_lines) -> None:  # noqa: ANN001
    events, labels = black_angel_lines
    lines = [e for e in events + labels if ": " in e and ("activates" in e or "reward" in e)]
    assert lines
    keys = re.compile(r"\b(?:vp|resource|robot|ship|debris) \d|\b(?:draw|worker) (?:orange|gray|green)\b")
    assert not [line for line in lines if keys.search(line)], lines[:5]
    assert any(re.search(r"activates tile \d+: .*\d+ VP", e) for e in events)
    assert B.effect_text({"vp": 2}) == "2 VP"
    assert B.effect_text({"vp": 1, "draw": "orange"}) == "1 VP, draw an orange mission"
    assert B.effect_text({"resource": 1, "robot": 2}) == "+1 resource, +2 robots"
    assert B.effect_text({"worker": "green"}) == "a robot to the green workstation"
    assert B.effect_text({}) == "nothing"


def test_black_angel_arrows_read_as_board_edges(black_angel_lines) -> None:  # noqa: ANN001
    _, labels = black_angel_lines
    arrows = [label for label in labels if label.startswith("insert ")]
    assert arrows
    assert not [a for a in arrows if "cells (" in a or "row1" in a or "col" in a.split()[-1]], arrows[:3]
    assert "insert the tile at the left end of row 1" in arrows
    assert set(D.ARROW_WORDS) == {
        "the left end of row 1", "the top end of column 3", "the right end of row 2",
        "the top end of column 2", "the right end of row 3", "the top end of column 1",
        "the left end of row 3", "the bottom end of column 1"}


def test_an_old_recording_is_not_diverged_by_the_rewording() -> None:
    old = ("seat 1 activates tile 102: vp 2, draw orange", "seat 1 draws a orange mission", "seat 0 moves ship 2")
    new = ("seat 1 activates tile 102: 2 VP, draw an orange mission", "seat 1 draws an orange mission", "seat 0 moves ship 2")
    assert reworded("black_angel", old[0]) == new[0]
    assert same_events("black_angel", old, new)
    # a different number, colour or line still differs
    assert not same_events("black_angel", ("seat 1 activates tile 102: vp 3",), ("seat 1 activates tile 102: 2 VP",))
    assert not same_events("black_angel", ("seat 1 draws a gray mission",), ("seat 1 draws an orange mission",))
    assert not same_events("black_angel", old[:2], new)
    assert not same_events("solenia", ("seat 1 draws a orange mission",), ("seat 1 draws an orange mission",))


def test_solenia_pending_card_is_not_named_twice(app) -> None:  # noqa: ANN001
    view = {"pending": {"card": "<2> card (recovery: 1 wheat)", "distance_left": 1}}
    with app.test_request_context():
        html = render_template("boards/solenia.html", view=view, seats=[], final_scores=None, to_move=None)
    text = unescape(re.sub(r"\s+", " ", html))
    assert "Pending: playing the <2> card (recovery: 1 wheat) · distance left 1" in text
    assert "card <2> card" not in text


def test_arena_games_is_in_english_with_aligned_columns() -> None:
    out = CliRunner().invoke(games_command, []).output
    assert not re.search(r"[\uac00-\ud7a3]", out), "Korean left in arena games"
    assert "solo rules, competitive version: you against two bot players" in out
    assert "1 bot player joins the game" in out and "2 bot players join the game" in out
    assert "  - solo-advanced-d10  players 1        solo against Hal" in out
    for block in re.split(r"\n(?=\S)", out.strip()):
        rows = [line for line in block.splitlines() if line.startswith("  - ")]
        assert rows, block
        columns = {line.index(" players ") for line in rows}
        assert len(columns) == 1, rows  # solo-advanced-d10 no longer pushes its row out of line
        starts = [re.match(r"  - \S+ +players \d+(?:, \d+)* +", line) for line in rows]
        helps = {m.end() for m in starts if m}  # rows with a help text: it starts in one column
        assert len(helps) <= 1, rows


def test_leaderboard_explains_provisional_as_sigma_above_the_bar(client) -> None:  # noqa: ANN001
    html = client.get("/games/toy").data.decode()
    bar = f"{PROVISIONAL_SIGMA:g}"
    assert f"its σ is above {bar}" in html
    assert "few games" not in html
    assert 'href="/glossary#ratings"' in html


def test_glossary_renders_and_defines_every_leaderboard_word(client) -> None:  # noqa: ANN001
    r = client.get("/glossary")
    assert r.status_code == 200
    page = unescape(r.data.decode())
    defined = {t.lower() for t in re.findall(r'<dt id="[^"]+">([^<]+?)\s*(?:<span|</dt>)', page)}
    for term in glossary.all_terms():
        assert f'id="{term.anchor}"' in page
    # every word of the leaderboard's legend: its column headings and its badges
    board = unescape(client.get("/games/toy").data.decode())
    head = board[board.index("<thead>"):board.index("</thead>")]
    headings = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", head)]
    lead = board[board.index('<p class="lead">'):board.index("</p>", board.index('<p class="lead">'))]
    badges = [b.strip() for b in re.findall(r'<span class="badge[^"]*"[^>]*>([^<]+)</span>', lead)]
    words = headings + badges + ["retired"]
    assert {"μ", "σ", "μ − 3σ", "provisional", "anchor", "anchor · calibrating"} <= set(words)
    missing = [w for w in words if w.lower() not in defined]
    assert missing == []
    # the numbers come from the code, and the forfeit reasons are all there
    assert f"σ is still above {PROVISIONAL_SIGMA:g}" in page
    for reason in ("timeout", "illegal option", "crash", "unreachable"):
        assert reason in defined
    assert "buchholz" in defined and "seat" in defined and "variant" in defined
    # linked from every page's footer
    assert 'href="/glossary"' in client.get("/").data.decode()
