"""The website's side of issue 30 item 6 (anchors shown as such: a fixed or a calibrating anchor
on the leaderboard, ``house`` and ``anchored`` in its JSON) and of issue 26 item 6 (the match
page of an Orbital ``bots-N`` game shows the bot players' places; a match nobody played is
counted in no one's matches). Screenshots at 1280 and 390 px go to ARENA_SCREENSHOTS when set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.db import Rating, session_scope
from arena.evaluation import ratings
from arena.records.recording import create_match, record_result
from tests.web.seed import add_bot, play_record


@pytest.fixture(scope="module")
def anchors(site) -> tuple[int, int]:  # noqa: ANN001
    """Two house bots of the toy game: one calibrated (fixed), one still calibrating."""
    with session_scope(site[0]) as s:
        fixed = add_bot(s, "house-greedy", owner="house")
        young = add_bot(s, "house-ismcts", owner="house")
        row = s.scalar(select(Rating).where(Rating.bot_version_id == fixed.id))
        row.mu, row.sigma = 31.0, ratings.CALIBRATED_SIGMA - 0.2
        return fixed.bot_id, young.bot_id


@pytest.fixture(scope="module")
def bots_match(site) -> str:  # noqa: ANN001
    """A real Orbital game with two seats and two bot players added (bots-2)."""
    url = site[0]
    with session_scope(url) as s:
        vids = [add_bot(s, f"orbital-pilot-{i}", game="orbital").id for i in range(2)]
        mid = create_match(s, "orbital", "bots-2", vids, seed=5, sandbox=False).id
    record = play_record(mid, ["orbital-pilot-0 v1", "orbital-pilot-1 v1"], 5, game="orbital", variant="bots-2")
    with session_scope(url) as s:
        record_result(s, mid, record.to_dict())
    return mid


def test_leaderboard_shows_anchors_fixed_or_calibrating(client, anchors) -> None:  # noqa: ANN001
    fixed, young = anchors
    html = client.get("/games/toy").data.decode()
    rows = {r.split('data-value="')[1].split('"')[0]: r for r in html.split("<tr")[1:] if 'class="name" data-value' in r}
    assert 'data-anchor="fixed">anchor</span>' in rows["house-greedy"]
    assert 'data-anchor="calibrating">anchor · calibrating</span>' in rows["house-ismcts"]
    assert sum("data-anchor" in r for r in rows.values()) == 2
    data = client.get("/api/games/toy/leaderboard").get_json()
    by_id = {r["bot_id"]: r for r in data["rows"]}
    assert (by_id[fixed]["house"], by_id[fixed]["anchored"]) == (True, True)
    assert (by_id[young]["house"], by_id[young]["anchored"]) == (True, False)
    assert not any(r["house"] or r["anchored"] for r in data["rows"] if r["owner"] != "house")


def test_match_page_lists_the_bot_players_places(client, site, bots_match) -> None:  # noqa: ANN001
    url, _ = site
    mid = bots_match
    html = client.get(f"/matches/{mid}").data.decode()
    with session_scope(url) as s:
        from arena.db import Match

        details = s.get(Match, mid).result["details"]
    table = html.split('<table id="bot-players"')[1].split("</table>")[0]
    for k, vp in enumerate(details["bot_vp"]):
        row = table.split(f'data-bot-player="{k}"')[1].split("</tr>")[0]
        assert f"Bot {'AB'[k]}</td>" in row and f'<td class="num">{vp}</td>' in row
        assert f'<td class="num">{details["places"][2 + k]}</td>' in row
    assert "counts the best-placed bot player as one more finisher" in table
    plain = client.get(f"/matches/{site[1].match_ids[0]}").data.decode()
    assert 'id="bot-players"' not in plain  # a game without bot players shows none


def test_pages_at_1280_and_390(page, live_server, anchors, bots_match, tmp_path: Path) -> None:  # noqa: ANN001
    """Both pages in Chromium, desktop and phone: no script errors, no sideways scrolling of
    the page itself (tables scroll in their own wrapper), the anchor badges and bot-player
    table visible."""
    mid = bots_match
    out = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server}/games/toy")
        assert page.locator("[data-anchor]").count() >= 1
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(out / f"leaderboard-anchors-{width}.png"), full_page=True)
        page.goto(f"{live_server}/matches/{mid}")
        assert page.locator("#bot-players").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(out / f"match-bot-players-{width}.png"))  # the top: seats, bot players
    assert page.js_errors == []
