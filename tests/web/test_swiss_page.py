"""The Swiss tournament page: standings (score, Buchholz, rating), rounds with byes, and the same
in the JSON API; in a real Chromium at desktop and phone widths."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.competition import tournaments
from arena.db import Match, dispose_all, session_scope
from arena.records import recording
from tests.web.seed import add_bot
from tests.web.test_every_page_browser import OVERFLOW_JS

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """Seven toy bots in a three-round Swiss at two seats: round 1 played, round 2 paired."""
    url = f"sqlite:///{tmp_path_factory.mktemp('swiss') / 'arena.sqlite3'}"
    rng = random.Random(5)
    with session_scope(url) as s:
        # one bot per author: a tournament takes one entry per author (arena.intake.authors)
        vids = [add_bot(s, name, owner=f"{name}-keeper").id for name in
                ("ant", "bee", "cricket", "dragonfly", "earwig", "firefly", "gnat")]
        t = tournaments.create_tournament(s, "toy", vids, 2, rounds=3, seed=1, format="swiss",
                                          name="Insect Swiss", sandbox=False)
        t.status = "running"
        tid = t.id
    with session_scope(url) as s:
        first = [m.id for m in s.scalars(select(Match).where(Match.tournament_id == tid))]
    for mid in first:
        ranks = [1, 2] if rng.random() < 0.5 else [2, 1]
        with session_scope(url) as s:
            recording.record_result(s, mid, {"result": {"ranks": ranks, "scores": [3 - r for r in ranks]},
                                             "forfeits": []})
    previous = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = url  # pair_next_round opens its own session
    try:
        assert len(tournaments.pair_next_round(tid)) == 3
    finally:
        if previous is None:
            os.environ.pop("ARENA_DATABASE_URL")
        else:
            os.environ["ARENA_DATABASE_URL"] = previous
    yield url, tid
    dispose_all()


def test_swiss_page_shows_standings_and_rounds(client, site) -> None:
    _url, tid = site
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Swiss" in html and 'id="swiss-standings"' in html and 'id="rounds"' in html
    assert "Buchholz" in html and "2 of 3 paired" in html
    assert "Sonneborn-Berger" in html and "1 for a win, ½ for a draw, 0 for a loss" in html  # the two-seat words
    assert "3 / 3" in html and "0 / 3" in html  # round 1 finished, round 2 waiting
    data = client.get(f"/api/tournaments/{tid}").get_json()
    standings = data["swiss_standings"]
    assert len(standings) == 7 and standings[0]["place"] == 1
    # places follow the lines; a place is shared exactly when every tie-break is level
    key = ("score_exact", "buchholz_exact", "sonneborn_berger_exact", "direct_exact", "rating")
    for i, (above, row) in enumerate(zip(standings, standings[1:], strict=False), start=2):
        level = all(above[k] == row[k] for k in key)
        assert row["place"] == (above["place"] if level else i) and row["shared"] == level
        assert level or row["decided_by"] in ("score", "Buchholz", "Sonneborn-Berger", "direct encounter", "rating")
    assert all(Fraction(r["score_exact"]) == r["score"] and f"{r['score']:.2f}" == r["score_text"] for r in standings)
    # 3 games, and the byes of rounds 1 and 2 (a bye counts once its round is paired)
    assert sum(r["score"] for r in standings) == pytest.approx(3 + 2)
    assert [len(r["byes"]) for r in data["rounds"]] == [1, 1]


@pytest.mark.parametrize(("width", "name"), [(1280, "swiss-tournament.png"), (390, "swiss-tournament-phone.png")])
def test_swiss_page_in_a_browser(browser, live_server, site, tmp_path, width: int, name: str) -> None:
    _url, tid = site
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/tournaments/{tid}")
        assert page.locator("#swiss-standings tbody tr").count() == 7
        assert page.locator("#rounds tbody tr").count() == 2
        assert page.get_by_role("columnheader", name="Buchholz").is_visible()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
        assert page.evaluate(OVERFLOW_JS) == []  # nor does any table scroll inside its frame
        # docs/screenshots only when asked (or missing): a normal run must not rewrite committed images
        update = os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not (SCREENSHOTS / name).exists()
        page.screenshot(path=str((SCREENSHOTS if update else tmp_path) / name), full_page=True)
    finally:
        context.close()
