"""The website in a real Chromium: sorting, navigation, the keyboard-driven replay, escaping,
and the phone layout. Screenshots for the README are taken here (see ``_save_screenshot``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.db import Match, session_scope
from tests.web.seed import XSS_NAME, add_bot, play_record

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _save_screenshot(page, name: str, tmp_path: Path) -> Path:  # noqa: ANN001
    """Screenshot into tmp_path; also into docs/screenshots when missing or when
    ARENA_UPDATE_SCREENSHOTS=1 (so a normal test run does not rewrite committed images)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 5_000
    target = DOCS / name
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not target.exists():
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)
    return shot


def _column(page, index: int) -> list[str]:  # noqa: ANN001
    return page.locator(f"#leaderboard tbody tr td:nth-child({index})").all_inner_texts()


def test_leaderboard_sort_bot_match_and_keyboard_replay(page, live_server, site, tmp_path) -> None:
    url, seeded = site
    page.goto(f"{live_server}/games/toy")
    names = [t.split("\n")[0].replace(" provisional", "").strip() for t in _column(page, 2)]
    assert len(names) == 4

    # sort by bot name, ascending then descending
    bot_header = page.locator("#leaderboard thead th", has_text="Bot")
    bot_header.get_by_role("button").click()
    assert bot_header.get_attribute("aria-sort") == "ascending"
    sorted_names = [
        page.locator(f"#leaderboard tbody tr:nth-child({i}) td:nth-child(2) a").inner_text()
        for i in range(1, 5)
    ]
    assert sorted_names == sorted(sorted_names, key=str.lower)
    bot_header.get_by_role("button").click()
    assert bot_header.get_attribute("aria-sort") == "descending"
    # sort by matches/σ numerically with the keyboard: focus the button, press Enter
    sigma = page.locator("#leaderboard thead th", has_text="σ").first
    sigma.get_by_role("button").focus()
    page.keyboard.press("Enter")
    sigmas = [float(x) for x in _column(page, 6)]
    assert sigmas == sorted(sigmas, reverse=True)
    assert "Sorted by" in page.locator(".sort-status").inner_text()

    # go to a bot, then to one of its finished matches
    page.get_by_role("link", name="alpha", exact=True).first.click()
    page.wait_for_url(f"**/bots/{seeded.bot_ids['alpha']}")
    assert page.locator("svg.chart path.mu").count() == 1
    done_row = page.locator("table tbody tr", has=page.locator(".badge.done")).first
    done_row.locator("a[href^='/matches/']").first.click()
    page.wait_for_selector("#replay[data-ready='0']")
    match_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    with session_scope(url) as s:
        m = s.get(Match, match_id)
        last = len(m.record["decisions"])
        stored = [seat.score for seat in m.seats]

    # step through every decision with the arrow key
    page.locator("h1").click()
    for step in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"#replay[data-ready='{step}']")
    assert page.locator("#step-output").inner_text() == f"Step {last} of {last}"
    assert page.locator("#step-slider").input_value() == str(last)
    shown = [
        float(page.locator(f"#step-view [data-testid='score-{i}']").inner_text())
        for i in range(len(stored))
    ]
    assert shown == stored
    assert page.locator("#event-log li[aria-current='step']").get_attribute("data-step") == str(
        last
    )
    # one more ArrowRight stays at the end; Home goes back to the opening position
    page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == str(last)
    page.keyboard.press("Home")
    page.wait_for_selector("#replay[data-ready='0']")
    assert "Opening position" in page.locator("#step-view").inner_text()
    # the slider and the buttons drive the same viewer
    page.locator("#step-slider").fill("2")
    page.wait_for_selector("#replay[data-ready='2']")
    page.get_by_role("link", name="Next step").click()
    page.wait_for_selector("#replay[data-ready='3']")
    assert page.url.endswith("?step=3")
    assert page.js_errors == []


def test_script_bot_name_shows_as_text(page, live_server, seeded) -> None:
    for path in ("/games/toy", f"/bots/{seeded.bot_ids[XSS_NAME]}", "/matches"):
        page.goto(live_server + path)
        assert page.get_by_text(XSS_NAME).first.is_visible()
        injected = page.evaluate(
            "() => Array.from(document.scripts).filter(s => s.textContent.includes('alert')).length"
        )
        assert injected == 0
    page.goto(f"{live_server}/matches/{seeded.match_ids[0]}?step=2")
    assert page.locator("#step-view .comment").inner_text() == f"Comment: “{XSS_NAME}”"
    assert page.js_errors == []  # no alert() dialog was opened


def test_phone_layout_does_not_scroll_sideways(browser, live_server, seeded) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    try:
        for path in (
            "/",
            "/games/toy",
            f"/matches/{seeded.match_ids[0]}",
            f"/bots/{seeded.bot_ids['alpha']}",
            "/matches",
        ):
            page.goto(live_server + path)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 376, (path, width)
    finally:
        context.close()


def test_not_found_page_in_the_browser(page, live_server) -> None:
    response = page.goto(f"{live_server}/bots/123456")
    assert response is not None and response.status == 404
    assert page.get_by_role("heading", name="Not found").is_visible()
    page.get_by_role("link", name="Go to the home page").click()
    page.wait_for_url(f"{live_server}/")


@pytest.fixture(scope="module")
def solenia_ladder(site) -> list[str]:
    """Six Solenia bots and nine real (random-play) matches, recorded and rated."""
    from arena.records.recording import create_match, record_result

    url, _ = site
    names = ["sunrise", "nightfall", "harvester", "voyager", "tidewalker", "stonecutter"]
    with session_scope(url) as s:
        vids = [
            add_bot(s, n, game="solenia", owner=f"team-{i % 3}").id for i, n in enumerate(names)
        ]
    label = dict(zip(vids, [f"{n} v1" for n in names], strict=True))
    ids = []
    for i in range(9):
        pair = [vids[i % 6], vids[(i + 1 + i // 6) % 6]]
        with session_scope(url) as s:
            match_id = create_match(
                s, "solenia", "summer", pair, seed=500 + i, kind="ladder", sandbox=False
            ).id
        record = play_record(
            match_id, [label[v] for v in pair], 500 + i, game="solenia", variant="summer"
        )
        with session_scope(url) as s:
            record_result(s, match_id, record.to_dict())
        ids.append(match_id)
    return ids


def test_solenia_leaderboard_and_replay_screenshots(
    page, live_server, site, solenia_ladder, tmp_path
) -> None:
    page.goto(f"{live_server}/games/solenia")
    assert page.locator("#leaderboard tbody tr").count() == 6
    _save_screenshot(page, "leaderboard.png", tmp_path)
    match_id = solenia_ladder[0]
    page.goto(f"{live_server}/matches/{match_id}?step=40")
    page.wait_for_selector("#replay[data-ready='40']")
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-ready='41']")
    assert page.locator("#step-view svg.hexes polygon").count() == 35
    # the board screenshots (solenia-replay*.png) are taken by test_replay_readable.py
    # End jumps to the last step: the board's final scores are the stored result
    page.keyboard.press("End")
    with session_scope(site[0]) as s:
        m = s.get(Match, match_id)
        last = len(m.record["decisions"])
        stored = [seat.score for seat in m.seats]
    page.wait_for_selector(f"#replay[data-ready='{last}']")
    shown = [
        float(page.locator(f"#step-view [data-testid='score-{i}']").inner_text()) for i in range(2)
    ]
    assert shown == stored
    assert page.js_errors == []
