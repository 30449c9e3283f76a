"""Issue #37 in a real Chromium on the README's default set-up (``arena serve`` + ``arena web``,
SQLite, no Redis): the seat's move log in words beside the board (``data-log``, one ``li`` a
move, the person's own moves marked, visible while the person chooses), each opponent's last
move marked on the board until the person's next move, and the end: the final board stays with
the result, the scores, the replay and record links and "Play again" (same bot, seats rotated).
At 1280 and 390 px; nothing scrolls sideways."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from arena.play.human import PER_CLIENT_ENV
from tests.web.test_every_page_browser import OVERFLOW_JS
from tests.web.test_play_browser import (  # noqa: F401 - default_setup: the fixture
    _first_option,
    _play_to_the_end,
    _screenshots,
    _start,
    default_setup,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", autouse=True)
def _roomy_caps() -> Iterator[None]:
    """This module leaves games to the fallback (resigned games count until they end): the
    set-up's ``arena web`` (started after this, with this environment) allows eight a client."""
    saved = os.environ.get(PER_CLIENT_ENV)
    os.environ[PER_CLIENT_ENV] = "8"
    yield
    if saved is None:
        os.environ.pop(PER_CLIENT_ENV, None)
    else:
        os.environ[PER_CLIENT_ENV] = saved


def _wait_turn(page) -> bool:  # noqa: ANN001
    """Wait for the next decision (True) or the end (False)."""
    page.wait_for_selector("#your-turn, #play-result", timeout=60000)
    return page.locator("#your-turn").count() > 0


def _moves(page) -> list[dict]:  # noqa: ANN001
    return page.eval_on_selector_all(
        "[data-log] > li",
        "lis => lis.map(li => ({n: li.dataset.n, seat: li.dataset.seat, mine: li.classList.contains('mine'),"
        " last: li.classList.contains('last'), text: li.textContent.replace(/\\s+/g, ' ').trim()}))",
    )


@pytest.mark.parametrize(("game", "width"), [("black_angel", 1280), ("solenia", 390)])
def test_the_log_grows_by_every_move_and_marks_the_opponents_last_move(
    browser, default_setup: str, game: str, width: int  # noqa: F811
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 500 else 900},
                                  is_mobile=width < 500)
    page = context.new_page()
    try:
        _start(page, default_setup, game)
        marked = 0
        # Ten moves, or more until an opponent's move was marked: on a loaded host the public
        # stream can lag the seat's page past its catch-up wait, and a Black Angel person may
        # make several moves in a row (seen once in a full two-worker run: none marked in ten).
        for click in range(30):
            if click >= 10 and marked:
                break
            if not _wait_turn(page):
                break
            log = page.locator("#play-log")
            before = _moves(page)
            # the log is there while the person thinks, every entry in words, numbered as players
            assert page.locator("[data-log]").count() == 1
            assert all(m["text"] and "seat " not in m["text"] for m in before), before
            assert all(m["mine"] == (m["text"].startswith("you")) for m in before)
            opponents_since = []
            for m in reversed(before):
                if m["mine"]:
                    break
                opponents_since.append(m)
            marks = page.locator("[data-board] [data-last-move]")
            # each opponent who moved since the person's last move is marked on the board
            assert marks.count() == len({m["seat"] for m in opponents_since}), (before[-5:], marks.count())
            if opponents_since:
                marked += 1
                assert {m["n"] for m in opponents_since if m["last"]}
                expect(marks.first).to_be_visible()
            assert page.evaluate(OVERFLOW_JS) == []
            expect(log).to_be_attached()
            if opponents_since and marked == 1 and width > 500:  # the first marked position
                _screenshots(page, f"play-table-{game.replace('_', '-')}")
            decision = page.locator("#seat").get_attribute("data-decision")
            turn = page.locator("#your-turn").element_handle()
            label = _first_option(page).inner_text()
            _first_option(page).click()
            turn.wait_for_element_state("hidden")
            if not _wait_turn(page):
                break
            after = _moves(page)
            assert len(after) >= len(before) + 1  # the log grew by (at least) the person's move
            mine = [m for m in after if m["n"] == decision]
            assert mine and mine[0]["mine"], (decision, after[-3:])
            assert " ".join(label.split())[:20] in mine[0]["text"] or "only you see this" in mine[0]["text"]
        assert marked, "no opponent's move was ever marked"
        # leave: the fallback plays the seat to the end
        page.locator("#leave summary").click()
        page.click("#resign")
        page.wait_for_selector("#resigned, #play-result")
    finally:
        context.close()


@pytest.mark.parametrize(("game", "players", "width"), [("orbital", 2, 1280), ("black_angel", 1, 390)])
def test_the_end_keeps_the_final_board_the_scores_and_play_again(
    browser, default_setup: str, game: str, players: int, width: int  # noqa: F811
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 500 else 900},
                                  is_mobile=width < 500)
    page = context.new_page()
    try:
        first = _start(page, default_setup, game, players)
        _play_to_the_end(page)
        # the final board stays, with the result, the breakdown and the links
        expect(page.locator("[data-board][data-final]")).to_be_visible()
        expect(page.locator("#play-outcome")).to_contain_text("You")
        assert page.locator("#play-breakdown tbody tr").count() == players
        for link in ("#play-replay", "#play-record"):
            href = page.locator(link).get_attribute("href")
            assert page.request.get(default_setup + href).ok, href
        assert page.locator("[data-log] > li").count() > 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        assert page.evaluate(OVERFLOW_JS) == []  # the breakdown fits too
        if width > 500:
            _screenshots(page, f"play-end-{game.replace('_', '-')}")
        box = page.locator("#play-again").bounding_box()
        assert box and box["height"] >= 44  # a finger's tap target
        # Play again: the same bot, seats rotated (player 1 becomes player 2 in a 2-player game)
        page.click("#play-again")
        page.wait_for_url(lambda url: "/play/" in url and first not in url)
        expected = "player 1" if players == 1 else "player 2"
        expect(page.locator("main p").first).to_contain_text(f"You are {expected}")
        if players > 1:
            expect(page.locator("main p").first).to_contain_text("house-random")
    finally:
        context.close()
