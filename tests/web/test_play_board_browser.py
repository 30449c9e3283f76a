"""Issue #37 items 1, 2, 5, 8 and 9 in a real Chromium on the README's default set-up: a person
plays a whole game of each game by clicking the board only (the option list hidden), at 1280
and at 390 px. Every click must hit a highlighted target (``[data-board] [data-choice]``: a
board place while it is legal, or a button of the board's action bar for an option with no
place), and the move log (``data-log``) must grow by the move. The move shows within 100 ms of
the server's answer (``play-swap``, measured by play.js). Screenshots mid-game and at the end
go to ``ARENA_SHOT_DIR`` (``ARENA_UPDATE_SCREENSHOTS=1``: docs/screenshots/)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from arena.play.human import PER_CLIENT_ENV
from benchmarks.bench_play_latency import FIRST_PAINT as _PAINT
from referee import registry
from tests.web.test_play_browser import (  # noqa: F401 - default_setup: the fixture
    _start,
    default_setup,
)
from tests.web.test_targets import _play

pytestmark = pytest.mark.browser

#: What a click reports: was it a highlighted board place or an action-bar button, with the
#: part or option it stood for, and does the page say the move went to the server.
_CLICKED = """e => ({target: e.classList.contains('target') && e.hasAttribute('data-target'),
  bar: !!e.closest('#board-bar'), choice: e.getAttribute('data-choice'),
  w: e.getBoundingClientRect().width, h: e.getBoundingClientRect().height})"""


@pytest.fixture(scope="module", autouse=True)
def _roomy_caps() -> Iterator[None]:
    saved = os.environ.get(PER_CLIENT_ENV)
    os.environ[PER_CLIENT_ENV] = "8"
    yield
    if saved is None:
        os.environ.pop(PER_CLIENT_ENV, None)
    else:
        os.environ[PER_CLIENT_ENV] = saved


def _shot(page: Page, name: str | None) -> None:
    if name is None:
        return
    shots = (os.path.join(os.path.dirname(__file__), "..", "..", "docs", "screenshots")
             if os.environ.get("ARENA_UPDATE_SCREENSHOTS") else os.environ.get("ARENA_SHOT_DIR", "/tmp"))
    page.screenshot(path=os.path.join(shots, f"{name}.png"), full_page=False)


def _log_size(page: Page) -> int:
    return page.locator("[data-log] > li").count()


#: Hovering an option outlines its places (``.hint``), hovering a place outlines its options.
_HOVER = """() => {
  const over = (el, type) => el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
  const option = [...document.querySelectorAll('#your-turn button.option')].find(b => b.dataset.parts);
  if (!option) return null;
  const key = option.dataset.parts.split(' ')[0];
  over(option, 'mouseover');
  const lit = [...document.querySelectorAll('[data-board] .hint')].map(e => e.getAttribute('data-target'));
  over(option, 'mouseout');
  const place = [...document.querySelectorAll('[data-board] [data-target]')]
    .find(e => e.getAttribute('data-target').split(' ').includes(key));
  over(place, 'mouseover');
  const options = [...document.querySelectorAll('#your-turn button.option.hint')].map(b => b.dataset.optionId);
  over(place, 'mouseout');
  return {key, lit, options, id: option.dataset.optionId,
          left: document.querySelectorAll('.hint').length};
}"""


def _check_the_hover_link(page: Page) -> bool:
    """False: the decision has no option with a place (all are buttons of the bar)."""
    link = page.evaluate(_HOVER)
    if link is None:
        return False
    assert link["lit"] and all(link["key"] in k.split() for k in link["lit"]), link
    assert link["id"] in link["options"], link
    assert link["left"] == 0, link
    return True


def _play_on_the_board(page: Page, seed: int, width: int, shot: str | None) -> dict[str, float]:
    """Play to the end by clicking ``[data-choice]`` elements of the board only; returns the
    measurements (clicks, moves, the slowest swap)."""
    rng = random.Random(seed)
    moves = clicks = places = 0
    hovered = picked_shot = False
    offered = 0  # decisions at which the board offered a place
    swaps: list[float] = []
    small: list[tuple[str, float, float]] = []
    while True:
        page.wait_for_selector("#your-turn, #play-result", timeout=30000)
        if page.locator("#play-result").count():
            break
        expect(page.locator("#option-list")).to_be_hidden()
        decision = page.locator("#seat").get_attribute("data-decision")
        before = _log_size(page)
        if moves == 8:
            _shot(page, shot and f"{shot}-mid")
        if not hovered:
            hovered = _check_the_hover_link(page)
        offered += page.locator("[data-board] [data-choice].target[data-target]").count() > 0
        for _part in range(8):
            choices = page.locator("[data-board] [data-choice]")
            count = choices.count()
            assert count, "nothing on the board to choose"
            el = choices.nth(rng.randrange(count))
            info = el.evaluate(_CLICKED)
            # the click hits a highlighted place, or a button of the board's action bar
            assert info["target"] or info["bar"], info
            if info["w"] < 43.5 or info["h"] < 43.5:
                small.append((info["choice"], info["w"], info["h"]))
            el.click()
            clicks += 1
            places += info["target"]
            if page.locator("#play-main[aria-busy=true]").count() or \
                    page.locator("#seat").get_attribute("data-decision") != decision:
                break
            # a choice of several parts: the part picked is marked, the next ones are lit
            expect(page.locator("#board-bar .cancel")).to_be_visible()
            if not picked_shot and page.locator("[data-board] .picked").count():
                picked_shot = True
                _shot(page, shot and f"{shot}-pick")
        else:
            pytest.fail("eight clicks did not make a move")
        page.wait_for_function(
            "d => !document.querySelector('#play-main[aria-busy=true]') && "
            "(document.querySelector('#play-result') || (document.querySelector('#your-turn') "
            "&& document.getElementById('seat').dataset.decision !== d))",
            arg=decision, timeout=30000)
        moves += 1
        # the log grew by the move (and holds it)
        assert _log_size(page) >= before + 1
        expect(page.locator(f"[data-log] > li[data-n='{decision}']")).to_have_count(1)
        swaps += page.evaluate(
            "performance.getEntriesByName('play-swap').map(e => e.duration)")
        page.evaluate("performance.clearMeasures('play-swap')")
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        assert moves < 200, "the game did not end"
    expect(page.locator("[data-board][data-final]")).to_be_attached()
    # the end shows from the top: the result in view, not the last place clicked
    expect(page.locator("#play-outcome")).to_be_in_viewport()
    _shot(page, shot and f"{shot}-end")
    maps = page.locator("[data-board][data-final] .map-pane")
    if width > 500 and maps.count():
        # the final board keeps the map column of play: the whole map on one screen beside the
        # rest of the board (it was the board's full width, 900 px and more tall, below it)
        box = maps.first.bounding_box()
        assert box and box["width"] < width * 0.4 and box["height"] < 900, box
    # tap targets: a finger's 44 px on a phone (a desktop's mouse is precise; reported only)
    if width < 500:
        assert not small, small[:5]
    swaps.sort()
    # the game is played on the board: at most decisions the board offers places (cards, cells,
    # modules, dice), and the random clicks hit them often. (Not "most clicks": which buttons a
    # random game meets varies; Orbital solo at 390 px hit places with 58 of 122 clicks once, 59
    # to 90 % in twelve other games, while the board offered places at 75-100 % of decisions.)
    assert offered * 2 > moves, (offered, moves)
    assert places * 3 > clicks, (places, clicks)
    assert hovered, "no decision had an option with a place"
    return {"moves": moves, "clicks": clicks, "places": places, "swaps": len(swaps), "median_swap_ms": swaps[len(swaps) // 2] if swaps else 0.0,
            "p90_swap_ms": swaps[int(len(swaps) * 0.9)] if swaps else 0.0,
            "max_swap_ms": swaps[-1] if swaps else 0.0, "small_targets": len(small), "offered": offered}


@pytest.mark.parametrize(("game", "players", "width"), [
    *[(game, 2, width) for game in ("black_angel", "orbital", "solenia") for width in (1280, 390)],
    # the solo games: Hal, Orbital's bot players, Solenia's virtual player (whose card the
    # person places on the map); no screenshots
    ("black_angel", 1, 1280), ("orbital", 1, 390), ("solenia", 1, 390),
])
def test_a_whole_game_played_on_the_board(
    browser, default_setup: str, game: str, players: int, width: int  # noqa: F811, ANN001
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 500 else 900},
                                  is_mobile=width < 500, has_touch=width < 500, bypass_csp=True)
    page = context.new_page()
    page.add_init_script("document.addEventListener('DOMContentLoaded', () => {"
                         " const s = document.createElement('style');"
                         " s.textContent = '#option-list { display: none !important; }';"
                         " document.head.appendChild(s); });")
    try:
        page.goto(f"{default_setup}/play")
        form_paint = page.evaluate(_PAINT)
        started = time.monotonic()
        _start(page, default_setup, game, players)
        paint = page.evaluate(_PAINT)
        shot = f"board-{game.replace('_', '-')}-{'phone' if width < 500 else 'desktop'}" if players == 2 else None
        stats = _play_on_the_board(page, 7, width, shot)
        stats["seconds"] = round(time.monotonic() - started, 1)
        stats["first_paint_ms"] = paint
        stats["form_first_paint_ms"] = form_paint
        print(f"\n{game} {width}px: {stats}")
        # the board is swapped in place after each answer (play.js's "play-swap" measure, not
        # a page load) and both pages paint. How fast (issue #37 item 9: 100 ms, first paint
        # under 1 s) is measured by benchmarks/bench_play_latency.py, not asserted here: on a
        # shared machine a test cannot tell a slow page from a busy host (the times printed
        # above are for reading the log)
        assert stats["swaps"] > 0, stats
        assert stats["form_first_paint_ms"] > 0 and stats["first_paint_ms"] > 0, stats
    finally:
        context.close()


#: Where the table is on the first screen: the board, the action bar (the prompt, Cancel and
#: Confirm), the places lit on the board that are on screen (inside the board's pane and not
#: under the bar), and whether anything scrolls.
_FIRST_SCREEN = """() => {
  const box = e => e ? e.getBoundingClientRect().toJSON() : null;
  const board = document.querySelector('[data-board]');
  const bar = document.getElementById('board-bar');
  const b = box(board), r = box(bar);
  const seen = [...document.querySelectorAll('[data-board] [data-target][data-choice]')].filter(e => {
    const p = e.getBoundingClientRect();
    return p.height > 0 && p.top >= Math.max(0, b.top) && p.bottom <= Math.min(innerHeight, b.bottom, r.top);
  }).length;
  return {board: b, bar: bar && !bar.hidden ? r : null, turn: box(document.getElementById('your-turn')),
          log: box(document.querySelector('[data-log]')), map: box(document.querySelector('[data-board] svg.hexes')),
          seen, scrollY: window.scrollY,
          scrollWidth: document.scrollingElement.scrollWidth, height: innerHeight};
}"""


@pytest.mark.parametrize("game", ["black_angel", "orbital", "solenia"])
def test_the_table_is_on_the_first_screen(browser, default_setup: str, game: str) -> None:  # noqa: F811, ANN001
    """Issue #37 item 5: at 1280×800 the board's top part, the action bar (prompt, Confirm) and
    the decision beside it are on the first screen without scrolling the page, with a lit place
    on screen, and Black Angel's and Solenia's whole map (a sticky column of the board's pane);
    at 390×844 nothing scrolls sideways and the action bar is on screen."""
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      is_mobile=width < 500, has_touch=width < 500)
        page = context.new_page()
        try:
            _start(page, default_setup, game)
            page.wait_for_selector("#your-turn")
            expect(page.locator("#board-bar")).to_be_visible()
            at = page.evaluate(_FIRST_SCREEN)
            bar, board = at["bar"], at["board"]
            assert bar is not None, at
            assert 0 <= bar["top"] and bar["bottom"] <= height, at  # the prompt and Confirm
            assert at["scrollWidth"] <= width, at  # nothing sideways
            if width > 500:
                assert at["scrollY"] == 0, at  # the first screen, as the page opened
                # the board's top part: it starts on screen and shows at least 300 px of board
                assert 0 <= board["top"] < height - 300 and min(board["bottom"], height) - board["top"] >= 300, at
                assert at["turn"]["top"] >= 0 and at["turn"]["bottom"] <= height, at  # the decision
                assert at["log"]["top"] < height, at  # the log beside the board, not below it
                # the board beside the decision, not above or below it
                assert board["right"] <= at["turn"]["left"], at
                # Black Angel's and Solenia's whole map: in its own column, in the window and
                # in the board's pane, beside the action bar rather than under it
                if game in ("black_angel", "solenia"):
                    lay = at["map"]
                    assert lay and lay["height"] > 250, at
                    assert board["top"] <= lay["top"] and lay["bottom"] <= min(height, board["bottom"]), at
                    assert 0 <= lay["left"] and lay["right"] <= board["right"], at
                    assert lay["right"] <= bar["left"] or lay["bottom"] <= bar["top"], at
            # a place to act on is on screen: inside the board's pane and not under the bar
            # (a decision whose every option is a button of the bar has none)
            if page.locator("[data-board] [data-target][data-choice]").count():
                assert at["seen"] > 0, at
            page.evaluate("document.getElementById('leave').open = true")
            page.click("#resign")
            expect(page.locator("#resigned, #play-result").first).to_be_visible(timeout=20000)
        finally:
            context.close()


def _at_first(game: str, variant: str, seed: int, kind: str) -> tuple[Any, int]:
    """A real two-player game played by test_targets' player from ``seed`` up to its first
    decision whose options are of ``kind`` (the id before ":"); returns the state and its
    decision number."""
    rng = random.Random(seed)
    state = registry.new_game(game, 2, seed, variant)
    n = 0
    while not state.legal_options()[0].id.startswith(f"{kind}:"):
        _play(state, game, rng)
        n += 1
    return state, n


def _stand_in_seat(monkeypatch, state: Any, decision: int, game: str, variant: str) -> tuple[Any, list[str]]:  # noqa: ANN001
    """The seat's row and the referee, standing in for a live game at ``state``'s decision:
    ``web.play._view`` returns the state's :class:`SeatView` (as the seat server would have
    written it) and ``human.choose`` records the option sent. Returns the view and that list."""
    from arena.play import human

    seat = state.to_move()
    view = human.SeatView(match_id=f"{decision:032x}", game=game,
                          variant=variant, players=2, seat=seat, status="playing",
                          match_status="running", decision=decision,
                          observation=state.observation(seat),
                          options=[(o.id, o.label) for o in state.legal_options()],
                          prompt=state.decision_prompt(), deadline=time.time() + 600,
                          seat_names=["house-random", "you"])
    sent: list[str] = []
    monkeypatch.setattr("web.play._view", lambda match_id: view)
    monkeypatch.setattr(human, "choose", lambda url, match_id, secret, d, option: sent.append(option))
    return view, sent


#: The resources of the person's store lit as places, by name.
_LIT = "() => [...document.querySelectorAll('[data-board] [data-target^=\"res:\"][data-choice]')]" \
       ".map(e => e.getAttribute('data-target').split(':').pop()).sort()"


def test_a_payment_is_its_resources_clicked_in_any_order(browser, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """Issue #37 item 1: a Solenia payment is chosen by clicking the resources of the person's
    store, one click a resource, in any order; the places lit are those some payment still
    needs, and the last click asks for Confirm, which sends the payment the clicks make up.

    The page is the real one: the site's Flask app on a real socket (``serving``), its /play
    route, templates, play.js and CSS, drawing a real engine state at a payment decision. What
    stands in for the referee is the seat's row (``web.play._view`` returns the state's
    :class:`SeatView`, as the seat server would have written it) and ``human.choose`` (records
    the option sent); a Playwright route answers /state (the long poll: "nothing changed")."""
    from tests.web.conftest import serving
    from web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'arena.sqlite3'}")  # an empty site: the page needs no rows

    # Solenia, winter with technology, seed 0: at its first payment the person (player 2) holds
    # 1 wood, 2 stone, 2 wheat, 2 water and may pay "1 stone, 2 water" or "2 stone, 1 water"
    # (the wood-and-wheat technology's swaps).
    state, decision = _at_first("solenia", "winter-tech", 0, "pay")
    seat = state.to_move()
    view, sent = _stand_in_seat(monkeypatch, state, decision, "solenia", "winter-tech")
    assert [o for o, _ in view.options] == ["pay:0-1-0-2", "pay:0-2-0-1"], view.options
    with serving(app) as site:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.route("**/state?*", lambda route: route.fulfill(
            json={"status": "playing", "decision": decision, "changes": 0, "retry_ms": 60000}))
        try:
            for clicks, lit in [
                # water first: every payment takes one, so stone and water stay lit
                (["water", "stone", "water"], [["stone", "water"], ["stone", "water"]]),
                # both waters first: only "1 stone, 2 water" is left, so only stone is lit
                (["water", "water", "stone"], [["stone", "water"], ["stone"]]),
            ]:
                page.goto(f"{site}/play/{view.match_id}")
                expect(page.locator("#board-bar")).to_be_visible()
                assert page.evaluate(_LIT) == ["stone", "water"]  # wood and wheat pay nothing here
                assert page.locator("#your-turn button[data-any-order]").count() == 2
                for i, name in enumerate(clicks):
                    place = page.locator(f"[data-board] [data-target='res:{seat}:{name}']")
                    assert place.get_attribute("data-choice") == f"res:{seat}:{name}", (clicks, i)
                    place.click()
                    if i == 0 and clicks[1] == "stone":
                        _shot(page, "board-solenia-payment-desktop")
                    if i < len(clicks) - 1:
                        assert page.evaluate(_LIT) == lit[i], (clicks, i)
                        expect(page.locator("#board-prompt")).to_contain_text(", ".join(clicks[: i + 1]))
                # the payment is whole: Confirm names it, nothing else is lit
                assert page.evaluate(_LIT) == []
                expect(page.locator("#board-prompt")).to_contain_text("Confirm")
                before = len(sent)
                page.locator("#board-bar [data-choice=confirm]").click()
                page.wait_for_function("() => !document.querySelector('#play-main[aria-busy=true]')")
                assert sent[before:] == ["pay:0-1-0-2"], sent
        finally:
            context.close()
        # on a phone: the same places, a finger's size, nothing sideways
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.route("**/state?*", lambda route: route.fulfill(
            json={"status": "playing", "decision": decision, "changes": 0, "retry_ms": 60000}))
        try:
            page.goto(f"{site}/play/{view.match_id}")
            page.locator(f"[data-board] [data-target='res:{seat}:water']").tap()
            assert page.evaluate(_LIT) == ["stone", "water"]
            sizes = page.eval_on_selector_all("[data-board] [data-choice]", "es => es.map(e => {"
                                              " const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); })")
            assert sizes and min(sizes) >= 43.5, sizes
            assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
            _shot(page, "board-solenia-payment-phone")
        finally:
            context.close()


#: The crew tokens hinted on the board, by their count (1..k).
_HINTED_CREW = "() => [...document.querySelectorAll('[data-board] .crew-tokens > li.hint')]" \
               ".map(e => +e.getAttribute('data-target').split(':').pop())"


def test_a_crew_count_hints_every_token_it_puts_in(browser, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """Issue #37: Orbital's High-Risk Project "put k crew in" is the k-th unused crew token;
    hovering (or focusing) the option, or the token, hints tokens 1..k — the whole count — not
    only the k-th. The page is the real one on a real socket; the seat's row and ``human.choose``
    stand in for the referee, as in the payment test above."""
    from tests.web.conftest import serving
    from web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'arena.sqlite3'}")
    # Orbital, standard, seed 2: its first High-Risk Project, "put k crew in" for k = 1..4
    state, decision = _at_first("orbital", "standard", 2, "crew")
    seat = state.to_move()
    view, sent = _stand_in_seat(monkeypatch, state, decision, "orbital", "standard")
    assert [o for o, _ in view.options] == ["crew:1", "crew:2", "crew:3", "crew:4"], view.options
    with serving(app) as site:
        for width, height in ((1280, 800), (390, 844)):
            phone = width < 500
            context = browser.new_context(viewport={"width": width, "height": height},
                                          is_mobile=phone, has_touch=phone)
            page = context.new_page()
            page.route("**/state?*", lambda route: route.fulfill(
                json={"status": "playing", "decision": decision, "changes": 0, "retry_ms": 60000}))
            try:
                page.goto(f"{site}/play/{view.match_id}")
                expect(page.locator("#board-bar")).to_be_visible()
                tokens = page.locator(f"[data-board] .crew-tokens > li[data-target^='crew:{seat}:']")  # the person's
                assert tokens.count() >= 4
                page.locator("#option-list > summary").click()  # the list, one tap away
                # the pointer away from the list: a button that opens under it stays hovered, and
                # a hover hints as a focus does (CI once saw [1] left after the blur below)
                page.mouse.move(1, 1)
                button = page.locator("#your-turn button.option[value='crew:3']")
                button.focus()
                assert page.evaluate(_HINTED_CREW) == [1, 2, 3]
                tokens.nth(3).scroll_into_view_if_needed()  # on a phone the station is below the list
                _shot(page, f"board-orbital-crew-hint-{'phone' if phone else 'desktop'}")
                page.mouse.move(1, 1)  # the scroll may have put a token under the pointer
                page.locator("#your-turn button.option[value='crew:1']").focus()
                assert page.evaluate(_HINTED_CREW) == [1]
                page.locator("#your-turn button.option[value='crew:1']").blur()
                assert page.evaluate(_HINTED_CREW) == []
                if not phone:
                    tokens.nth(1).hover()  # the second token: "put 2 crew in", and token 1 with it
                    assert page.evaluate(_HINTED_CREW) == [1]
                    hinted = page.eval_on_selector_all("#your-turn button.option.hint", "bs => bs.map(b => b.value)")
                    assert hinted == ["crew:2"], hinted
                    tokens.nth(1).click()
                    page.wait_for_function("() => !document.querySelector('#play-main[aria-busy=true]')")
                    assert sent == ["crew:2"], sent
                assert page.evaluate("document.scrollingElement.scrollWidth") <= width
            finally:
                context.close()
