"""Replays that play, in a real Chromium: play/pause and speed on a match page (the step kept in
the address), Space to pause, the page without JavaScript, and /replay opening a record file
that a real referee match wrote (``arena play --out``). Takes the replay-controls and
replay-file screenshots (1280 and 390 px).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from arena.db import Match, session_scope
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from tests.web.test_browser import _save_screenshot

pytestmark = pytest.mark.browser

RANDOM_BOT = str(Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot")
STEP = re.compile(r"\?step=(\d+)$")


def _url_step(page) -> int:  # noqa: ANN001
    found = STEP.search(page.url)
    assert found, page.url
    return int(found.group(1))


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A Solenia match between two random bots, played by the referee (gRPC bot processes,
    not sandboxed) and written as ``arena play --out`` writes it."""
    config = MatchConfig(
        game="solenia",
        seats=[SeatSpec("sunrise", RANDOM_BOT), SeatSpec("nightfall", RANDOM_BOT)],
        seed=21,
        sandbox=False,
        startup_ms=120_000,
        start_budget_ms=60_000,
        time_control=TimeControl(decision_ms=30_000, bank_ms=120_000),  # a loaded machine
    )
    record = run_match(config)
    assert record.forfeits == [] and len(record.decisions) > 40
    path = tmp_path_factory.mktemp("records") / "solenia-match.json"
    path.write_text(record.to_json(indent=1) + "\n", encoding="utf-8")
    return path, record.to_dict()


def test_play_pause_speed_and_space(page, live_server, site, seeded, tmp_path) -> None:
    match_id = seeded.match_ids[0]
    with session_scope(site[0]) as s:
        last = len(s.get(Match, match_id).record["decisions"])
    page.goto(f"{live_server}/matches/{match_id}?step=2")
    page.wait_for_selector("#replay[data-ready='2']")
    play = page.locator("#play-button")
    expect(play).to_be_visible()
    expect(play).to_have_text("▶ Play")
    page.locator("#play-speed").select_option("4")
    play.click()
    expect(page.locator("#replay")).to_have_attribute("data-playing", "true")
    expect(play).to_have_text("❚❚ Pause")
    page.wait_for_url(re.compile(r"\?step=([5-9]|\d\d)$"), timeout=10_000)  # played on by itself
    # Space pauses (focus is not in a form field) and the address holds the step shown.
    page.locator("h1").click()
    page.keyboard.press("Space")
    expect(page.locator("#replay")).to_have_attribute("data-playing", "false")
    paused = _url_step(page)
    page.wait_for_selector(f"#replay[data-ready='{paused}']")
    page.wait_for_timeout(800)  # three ticks at 4 steps/s: nothing moves
    assert _url_step(page) == paused and page.locator("#replay").get_attribute("data-step") == str(paused)
    assert page.locator("#step-output").inner_text() == f"Step {paused} of {last}"
    # The copied address opens that moment.
    other = page.context.new_page()
    other.goto(page.url)
    assert other.locator("#step-output").inner_text() == f"Step {paused} of {last}"
    other.close()
    # Space in a form field (the speed menu) does not toggle; arrows still step when paused.
    page.locator("#play-speed").focus()
    page.keyboard.press("Space")
    page.keyboard.press("Escape")
    assert page.locator("#replay").get_attribute("data-playing") == "false"
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#replay[data-ready='{paused + 1}']")
    assert _url_step(page) == paused + 1
    # Played to the end, it stops there by itself with the final result shown.
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f"#replay[data-ready='{last - 2}']")
    page.keyboard.press("Space")
    expect(page.locator("#replay")).to_have_attribute("data-playing", "false", timeout=10_000)
    page.wait_for_selector(f"#replay[data-ready='{last}']")
    assert _url_step(page) == last
    expect(page.locator("#step-view [data-testid='final-result']")).to_be_visible()
    # Play at the end starts again from the opening position.
    play.click()
    page.wait_for_url(re.compile(r"\?step=[0-3]$"))
    play.click()
    expect(page.locator("#replay")).to_have_attribute("data-playing", "false")
    page.goto(f"{live_server}/matches/{match_id}?step=12")
    page.wait_for_selector("#replay[data-ready='12']")
    _save_screenshot(page, "replay-controls.png", tmp_path)
    assert page.js_errors == []


def test_controls_on_a_phone(browser, live_server, seeded, tmp_path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/matches/{seeded.match_ids[0]}?step=12")
        page.wait_for_selector("#replay[data-ready='12']")
        page.evaluate("() => document.getElementById('replay-title').scrollIntoView()")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        expect(page.locator("#play-button")).to_be_in_viewport()
        _save_screenshot(page, "replay-controls-phone.png", tmp_path)
    finally:
        context.close()


def test_without_javascript_the_step_links_work(browser, live_server, seeded) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/matches/{seeded.match_ids[0]}?step=3")
        expect(page.locator("#play-button")).to_be_hidden()
        expect(page.locator("#play-speed")).to_be_hidden()
        page.get_by_role("link", name="Next step").click()
        page.wait_for_url("**?step=4")
        assert page.locator("#step-output").inner_text().startswith("Step 4 of ")
        page.goto(f"{live_server}/replay")
        expect(page.get_by_text("reads the file with JavaScript, which is turned off")).to_be_visible()
    finally:
        context.close()


def test_open_a_record_file(page, live_server, record_file, tmp_path) -> None:
    path, record = record_file
    last = len(record["decisions"])
    requests: list[tuple[str, int]] = []
    page.on("request", lambda r: requests.append((r.url, len(r.post_data_buffer or b""))))
    page.goto(f"{live_server}/replay?step=30")
    page.locator("#record-file").set_input_files(str(path))
    page.wait_for_selector("#replay[data-ready='30']")
    assert page.locator("#record-status").inner_text() == f"solenia-match.json: {last} steps."
    assert page.locator("#step-output").inner_text() == f"Step 30 of {last}"
    decision = record["decisions"][29]
    view = page.locator("#step-view")
    assert view.locator(".choice").get_attribute("data-option-id") == decision["option"]
    assert view.get_by_text(record["seats"][decision["seat"]]["name"]).first.is_visible()
    assert view.locator("svg.hexes polygon").count() == 35
    expect(page.locator("#file-seats tbody tr")).to_have_count(2)
    # Step on with the keyboard; the step comes from the server, posted again (nothing kept).
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-ready='31']")
    assert page.url.endswith("/replay?step=31")
    posted = [(u, n) for u, n in requests if u.endswith("/replay/step")]
    assert posted and all(0 < n < len(path.read_bytes()) for _, n in posted)  # never the whole file
    # The end shows the recorded final scores.
    page.keyboard.press("End")
    page.wait_for_selector(f"#replay[data-ready='{last}']")
    shown = [float(view.locator(f"[data-testid='score-{i}']").inner_text()) for i in range(2)]
    assert shown == record["result"]["scores"]
    page.keyboard.press("Home")
    page.wait_for_selector("#replay[data-ready='0']")
    # Play works here too.
    page.locator("#play-speed").select_option("4")
    page.locator("#play-button").click()
    page.wait_for_url(re.compile(r"/replay\?step=[3-9]$"), timeout=10_000)
    page.locator("h1").click()
    page.keyboard.press("Space")
    expect(page.locator("#replay")).to_have_attribute("data-playing", "false")
    page.goto(f"{live_server}/replay?step=30")
    page.locator("#record-file").set_input_files(str(path))
    page.wait_for_selector("#replay[data-ready='30']")
    expect(page.locator("#record-needs-js")).to_be_hidden()
    page.set_viewport_size({"width": 1280, "height": 1500})  # the picker and the board
    _save_screenshot(page, "replay-file.png", tmp_path)
    assert page.js_errors == []


def test_a_broken_file_shows_why(page, live_server, record_file, tmp_path) -> None:
    path, record = record_file
    page.goto(f"{live_server}/replay")
    broken = tmp_path / "broken.json"
    broken.write_text(path.read_text()[:200])
    page.locator("#record-file").set_input_files(str(broken))
    expect(page.locator("#record-error")).to_contain_text("broken.json is not a match record")
    bad = tmp_path / "illegal.json"
    bad.write_text(path.read_text().replace(f'"option": "{record["decisions"][7]["option"]}"', '"option": "bogus"', 1))
    page.locator("#record-file").set_input_files(str(bad))
    expect(page.locator("#record-error")).to_contain_text("Cannot show illegal.json: decision ")
    expect(page.locator("#record-error")).to_contain_text("the engine rejects 'bogus'")
    assert page.locator("#replay").count() == 0
    assert page.js_errors == []


def test_record_file_on_a_phone(browser, live_server, record_file, tmp_path) -> None:
    path, _ = record_file
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/replay?step=30")
        page.locator("#record-file").set_input_files(str(path))
        page.wait_for_selector("#replay[data-ready='30']")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        page.evaluate("() => document.getElementById('replay-title').scrollIntoView()")
        _save_screenshot(page, "replay-file-phone.png", tmp_path)
    finally:
        context.close()
