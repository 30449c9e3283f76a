"""The season pages (issue 39 item 6): the list, a finished season's final standings with its
downloads (the same bytes as ``arena season export``), each entry's bot page showing its place,
and the season page in Chromium at 1280 and 390 px with no sideways scroll."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import cli
from arena.competition import seasons, tournaments
from arena.db import Bot, Match, Tournament, dispose_all, session_scope, utcnow
from arena.records import recording
from tests.web.seed import add_bot
from tests.web.test_markup import check_page

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
NAMES = ["aurora-with-a-rather-long-name-for-a-phone", "borealis", "cassiopeia", "draco", "eridanus", "fornax"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """Six toy bots in a season: submissions closed, the top four's round-robin final played
    (results recorded as a worker would), the standings published; and an open season."""
    url = f"sqlite:///{tmp_path_factory.mktemp('season') / 'arena.sqlite3'}"
    rng = random.Random(6)
    with session_scope(url) as s:
        versions = [add_bot(s, name, owner=f"owner{i}") for i, name in enumerate(NAMES)]
        season = seasons.create_season(s, "toy", "Autumn 2026", utcnow() + timedelta(days=3), players=2, top_k=4,
                                       final_rounds=2, description="Six bots; the best four play the final.")
        for v in versions:
            seasons.enter(s, season, s.get(Bot, v.bot_id))
        seasons.freeze(s, season, early=True)
        final = seasons.start_final(s, season, sandbox=False)
        tournaments.start(s, final)
        sid, tid = season.id, final.id
        seasons.create_season(s, "toy", "Winter 2026", utcnow() + timedelta(days=30), players=2)
    with session_scope(url) as s:
        ids = list(s.scalars(select(Match.id).where(Match.tournament_id == tid)))
    for mid in ids:
        ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
        with session_scope(url) as s:
            recording.record_result(s, mid, {"result": {"ranks": ranks, "scores": [3 - r for r in ranks]},
                                             "forfeits": []})
    with session_scope(url) as s:
        assert s.get(Tournament, tid).status == "done"
        seasons.finish(s, seasons.get(s, sid))
    yield url, sid
    dispose_all()


def test_the_list_the_page_the_downloads_and_the_bot_pages(client, site) -> None:
    url, sid = site
    html = client.get("/seasons").get_data(as_text=True)
    assert "Autumn 2026" in html and "Winter 2026" in html and 'href="/seasons"' in html  # in the menu too
    page = client.get(f"/seasons/{sid}").get_data(as_text=True)
    check_page(page)
    assert "Final standings" in page and "Final standings published" in page and "provisional" not in page
    assert page.count('class="finalist"') == 4 and page.count("<tr") == 1 + len(NAMES)
    with session_scope(url) as s:
        rows = seasons.standings(s, seasons.get(s, sid))
    for fmt in seasons.FORMATS:
        got = client.get(f"/seasons/{sid}/standings.{fmt}")
        assert got.status_code == 200 and f"season-{sid}-standings.{fmt}" in got.headers["Content-Disposition"]
        cli_out = CliRunner().invoke(cli, ["season", "export", str(sid), "--format", fmt, "--out", "-"],
                                     env={"ARENA_DATABASE_URL": url}, catch_exceptions=False)
        assert cli_out.exit_code == 0 and got.get_data(as_text=True) == cli_out.output
    assert [r["place"] for r in json.loads(client.get(f"/seasons/{sid}/standings.json").data)["standings"]] == \
        [r["place"] for r in rows]
    for row in rows:  # each entry's page shows its place
        bot_page = client.get(f"/bots/{row['bot_id']}").get_data(as_text=True)
        assert f"place {row['place']}</strong> of {len(NAMES)}" in bot_page
        assert ("(finalist)" in bot_page) == row["finalist"]
    assert client.get("/seasons/999").status_code == 404
    with session_scope(url) as s:  # an open season: its entries so far, by their rating now
        open_season = next(b for b in seasons.briefs(s) if b.status == "open")
        seasons.enter(s, seasons.get(s, open_season.id), s.get(Bot, rows[0]["bot_id"]))
    page = client.get(f"/seasons/{open_season.id}").get_data(as_text=True)
    check_page(page)
    assert "Standings so far" in page and "provisional" in page and "μ − 3σ now" in page
    assert rows[0]["bot"] in page and "Open for entries" in page


@pytest.mark.parametrize(("width", "name"), [(1280, "season.png"), (390, "season-phone.png")])
def test_the_season_page_fits(browser, live_server, site, tmp_path, width: int, name: str) -> None:
    _url, sid = site
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/seasons/{sid}")
        assert page.locator("#season-standings tbody tr").count() == len(NAMES)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
        update = os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not (SCREENSHOTS / name).exists()
        page.screenshot(path=str((SCREENSHOTS if update else tmp_path) / name), full_page=True)
        page.goto(f"{live_server}/seasons")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
    finally:
        context.close()
