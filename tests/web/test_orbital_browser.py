"""An Orbital replay in a real Chromium: step with the keyboard, jump to the end, see the
stored final scores on the drawn board. (The screenshots are taken by test_board_fit_browser.)"""

from __future__ import annotations

import pytest

from arena.db import Match, session_scope
from tests.web.seed import add_engine_match

pytestmark = pytest.mark.browser

def test_orbital_replay_steps_to_the_end(page, live_server, site) -> None:  # noqa: ANN001
    match_id = add_engine_match(site[0], "orbital", 3, 7)
    with session_scope(site[0]) as s:
        m = s.get(Match, match_id)
        last = len(m.record["decisions"])
        stored = [seat.score for seat in m.seats]
    at = min(150, last - 2)
    page.goto(f"{live_server}/matches/{match_id}?step={at}")
    page.wait_for_selector(f"#replay[data-ready='{at}']")
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#replay[data-ready='{at + 1}']")
    assert page.locator("#step-view .station-map").count() == 3
    assert page.locator("#step-view .station-map .module").count() >= 3
    page.keyboard.press("End")
    page.wait_for_selector(f"#replay[data-ready='{last}']")
    shown = [float(page.locator(f"#step-view [data-testid='score-{i}']").inner_text()) for i in range(3)]
    assert shown == stored
    assert page.locator("[data-testid='final-result']").count() == 1
    assert page.js_errors == []
