"""A tournament published as it happens (issue 39 item 4): `arena tournament export` and the
page's downloads give the same CSV and JSON; the crosstable shows every round, the next one as
soon as it is paired; a 300-entrant four-seat Swiss page is usable at 390 px (no sideways
scroll, a name search) in a real Chromium."""

from __future__ import annotations

import csv
import io
import json
import os
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import cli
from arena.competition import export, tournaments
from arena.db import Match, Tournament, dispose_all, session_scope
from arena.records import recording
from tests.web.seed import add_bot

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
N = 300
HOSTILE = "=HYPERLINK(evil)"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """300 toy bots (one named like a spreadsheet formula) in a four-seat Swiss: round 1
    played, round 2 paired and waiting."""
    url = f"sqlite:///{tmp_path_factory.mktemp('export') / 'arena.sqlite3'}"
    rng = random.Random(39)
    with session_scope(url) as s:
        names = [HOSTILE] + [f"entrant-{i:03d}-with-a-rather-long-name" for i in range(1, N)]
        vids = [add_bot(s, name, owner=f"owner{i}").id for i, name in enumerate(names)]
        t = tournaments.create_tournament(s, "toy", vids, 4, rounds=3, seed=3, format="swiss",
                                          name="Three hundred", sandbox=False)
        t.status = "running"
        tid = t.id
    with session_scope(url) as s:
        first = [m.id for m in s.scalars(select(Match).where(Match.tournament_id == tid))]
    for mid in first:
        ranks = rng.sample([1, 2, 3, 4], 4)
        with session_scope(url) as s:
            recording.record_result(s, mid, {"result": {"ranks": ranks, "scores": [5 - r for r in ranks]},
                                             "forfeits": []})
    previous = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = url
    try:
        assert len(tournaments.pair_next_round(tid)) == N // 4
    finally:
        if previous is None:
            os.environ.pop("ARENA_DATABASE_URL")
        else:
            os.environ["ARENA_DATABASE_URL"] = previous
    yield url, tid
    dispose_all()


def _cli(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"ARENA_DATABASE_URL": url}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_export_equals_the_page_downloads(client, site, tmp_path: Path) -> None:
    url, tid = site
    out = _cli(url, "tournament", "export", str(tid), "--out", str(tmp_path))
    assert out.count("wrote ") == 6
    for table in export.TABLES:
        for fmt in export.FORMATS:
            written = (tmp_path / f"tournament-{tid}-{table}.{fmt}").read_text(encoding="utf-8")
            response = client.get(f"/tournaments/{tid}/{table}.{fmt}")
            assert response.status_code == 200 and response.get_data(as_text=True) == written
            assert f"tournament-{tid}-{table}.{fmt}" in response.headers["Content-Disposition"]
    assert _cli(url, "tournament", "export", str(tid), "--table", "standings", "--format", "json", "--out", "-") == \
        (tmp_path / f"tournament-{tid}-standings.json").read_text(encoding="utf-8")
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    for table in export.TABLES:
        assert f'/tournaments/{tid}/{table}.csv"' in html and f'/tournaments/{tid}/{table}.json"' in html


def test_exported_figures_are_exact_and_complete(client, site) -> None:
    _url, tid = site
    standings = client.get(f"/tournaments/{tid}/standings.json").get_json()
    assert standings["tournament"]["format"] == "swiss" and len(standings["standings"]) == N
    # round 1: 75 tables of 1 + 2/3 + 1/3 + 0 = 2 points; round 2 is paired, not played
    assert sum(Fraction(r["score"]) for r in standings["standings"]) == 2 * (N // 4)
    page = client.get(f"/api/tournaments/{tid}").get_json()["swiss_standings"]
    assert [(r["place"], r["score_exact"], r["score_text"]) for r in page] == \
        [(r["place"], r["score"], r["score_shown"]) for r in standings["standings"]]
    pairings = list(csv.DictReader(io.StringIO(client.get(f"/tournaments/{tid}/pairings.csv").get_data(as_text=True))))
    assert len(pairings) == 2 * (N // 4) and {p["round"] for p in pairings} == {"1", "2"}
    assert {p["status"] for p in pairings if p["round"] == "2"} == {"pending"}  # published before play
    assert all(p["seat_4"] for p in pairings)
    results = json.loads(client.get(f"/tournaments/{tid}/results.json").get_data(as_text=True))["results"]
    assert len(results) == N and {r["points"] for r in results} == {"1", "2/3", "1/3", "0"}
    # a name that a spreadsheet would run as a formula is written as text
    text = client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True)
    assert f"'{HOSTILE}" in text and f",{HOSTILE}" not in text


def test_export_mistakes_get_one_clear_line(site, tmp_path: Path) -> None:
    url, tid = site
    runner = CliRunner()
    result = runner.invoke(cli, ["tournament", "export", "999999"], env={"ARENA_DATABASE_URL": url})
    assert result.exit_code == 1 and "no tournament 999999" in result.output and "Traceback" not in result.output
    result = runner.invoke(cli, ["tournament", "export", str(tid), "--out", "-"], env={"ARENA_DATABASE_URL": url})
    assert result.exit_code == 2 and "one --table and one --format" in result.output
    result = runner.invoke(cli, ["tournament", "export", str(tid), "--out", str(tmp_path / "nope")],
                           env={"ARENA_DATABASE_URL": url})
    assert result.exit_code == 1 and "is not a folder" in result.output
    with pytest.raises(export.ExportError, match="choose one of"):
        with session_scope(url) as s:
            export.render(export.tables(s, s.get(Tournament, tid)), "secrets", "csv")


def test_bad_download_urls_are_404(client, site) -> None:
    _url, tid = site
    assert client.get(f"/tournaments/{tid}/secrets.csv").status_code == 404
    assert client.get(f"/tournaments/{tid}/standings.xlsx").status_code == 404
    assert client.get("/tournaments/999999/standings.csv").status_code == 404


def test_crosstable_shows_played_and_paired_rounds(client, site) -> None:
    _url, tid = site
    html = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="crosstable"' in html and "<th scope=\"col\">R2</th>" in html and "<th scope=\"col\">R3</th>" not in html
    assert html.count('class="x-place"') == N and html.count('class="x-pending"') == N
    assert "place 1 of 4" in html and "not played yet" in html
    # the page explains the four-seat tie-breaks in four-seat words
    assert "1, ⅔, ⅓, 0 for the four places" in html and "divided by 3" in html


@pytest.mark.parametrize(("width", "name"), [(1280, "swiss-300.png"), (390, "swiss-300-phone.png")])
def test_a_300_entrant_page_fits_and_finds_a_bot(browser, live_server, site, tmp_path, width: int, name: str) -> None:
    _url, tid = site
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/tournaments/{tid}")
        assert page.locator("#swiss-standings tbody tr").count() == N
        assert page.locator("#crosstable tbody tr").count() == N
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
        update = os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not (SCREENSHOTS / name).exists()
        page.screenshot(path=str((SCREENSHOTS if update else tmp_path) / name), full_page=False)
        page.locator("#crosstable").scroll_into_view_if_needed()
        page.evaluate("() => document.getElementById('crosstable').closest('.table-wrap').previousElementSibling.scrollIntoView()")
        crossname = name.replace("swiss-300", "swiss-300-crosstable")
        update = os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not (SCREENSHOTS / crossname).exists()
        page.screenshot(path=str((SCREENSHOTS if update else tmp_path) / crossname), full_page=False)
        page.fill("#entrant-filter", "entrant-123")
        assert page.locator("#swiss-standings tbody tr:visible").count() == 1
        assert page.locator("#crosstable tbody tr:visible").count() == 1
        page.fill("#entrant-filter", "")
        assert page.locator("#swiss-standings tbody tr:visible").count() == N
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1
    finally:
        context.close()
