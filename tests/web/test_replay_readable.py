"""Replay boards a player can read, checked in a real Chromium (issue 15, item 5).

Every step of whole Black Angel (three players, solo), Solenia and Orbital (three players,
competitive solo) replays is rendered and read
as the viewer sees it: no rule identifier, the Black Angel map's legend names every colour and
token drawn, the stepper's buttons are disabled at the ends, and the leaderboard and history
tables fit a 390 px phone. The README's Black Angel and Solenia board screenshots are taken here
(desktop and phone; Orbital's in test_board_fit_browser.py).
"""

from __future__ import annotations

import re

import pytest

from arena.db import Bot, Match, session_scope
from arena.records.recording import create_match, record_result
from referee.black_angel.decisions import PHASES as BA_PHASES
from referee.orbital.state import PHASE_NAMES as ORB_PHASES
from referee.solenia.fields import PHASE_NAMES as SOL_PHASES
from sample_bots.black_angel_greedy.bot import act as black_angel_greedy
from tests.web.seed import add_bot, play_record
from tests.web.test_browser import _save_screenshot
from web.replay import Replay

pytestmark = pytest.mark.browser

#: ``snake_case`` words and ``kind:value`` ids: how rule identifiers look in this code base.
IDENTIFIER = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\b[a-z]+\d*:[a-z0-9:_-]+\b")
PHASE_WORDS = {
    "black_angel": [f"phase {p}" for p in BA_PHASES],
    "solenia": [f"phase {p}" for p in SOL_PHASES],
    "orbital": [f"phase {p}" for p in ORB_PHASES],
}
NAMES = ["Ada Lovelace", "Grace Hopper", "Linus"]
#: A long name with no spaces, so the phone tables must wrap it at its separators.
LONG_NAME = "very_long_snake_case_bot_for_phones"


def _add(url: str, game: str, players: int, seed: int, variant: str, policy=None) -> str:  # noqa: ANN001
    with session_scope(url) as s:
        vids = [
            add_bot(s, NAMES[i], game=game, owner=f"{game}-{variant}-{seed}").id
            for i in range(players)
        ]
        match_id = create_match(s, game, variant, vids, seed=seed, sandbox=False).id
    record = play_record(
        match_id,
        [f"{n} v1" for n in NAMES[:players]],
        seed,
        game=game,
        variant=variant,
        policy=policy,
    )
    with session_scope(url) as s:
        record_result(s, match_id, record.to_dict())
    return match_id


@pytest.fixture(scope="module")
def matches(site) -> dict[str, str]:
    """Greedy Black Angel games (they place missions and fly ships) and a random Solenia one."""
    url, _ = site
    with session_scope(url) as s:
        add_bot(s, LONG_NAME, game="toy", owner="someone_with_a_long_login_name")
    return {
        "black_angel": _add(url, "black_angel", 3, 10, "base", black_angel_greedy),
        "black_angel_solo": _add(url, "black_angel", 1, 11, "solo", black_angel_greedy),
        "solenia": _add(url, "solenia", 2, 42, "summer"),
        "orbital": _add(url, "orbital", 3, 7, "standard"),
        "orbital_solo": _add(url, "orbital", 1, 8, "competitive"),
    }


@pytest.fixture(scope="module")
def busy_step(site, matches) -> int:
    """The Black Angel step with the most crews' ships and placed missions in space (found
    from the record, so the checks below keep finding ships when the game's data change)."""
    with session_scope(site[0]) as s:
        replay = Replay(s.get(Match, matches["black_angel"]).record)

    def crowd(index: int) -> tuple[int, int]:
        hexes = [h for st in replay.step(index).view["space"]["strips"] for h in st["hexes"]]
        return len({o for h in hexes for o in h["ships"]}), sum(1 for h in hexes if "mission" in h)

    best = max(range(replay.last + 1), key=crowd)
    assert crowd(best)[0] == 3 and crowd(best)[1] >= 1
    return best


def _last(page) -> int:  # noqa: ANN001
    return int(page.locator("#replay").get_attribute("data-last"))


def _visible_text(page, selector: str) -> str:  # noqa: ANN001
    """What the viewer reads in ``selector``, without the bots' own comments."""
    return page.evaluate(
        """(sel) => {
            const root = document.querySelector(sel);
            root.querySelectorAll('.comment, .bot-comment').forEach(e => e.remove());
            return root.innerText;
        }""",
        selector,
    )


def _readable(text: str, game: str) -> list[str]:
    found = IDENTIFIER.findall(text)
    found += [w for w in PHASE_WORDS[game] if w in text]
    return found


LEGEND_FACTS = """(view) => {
  const map = view.querySelector('svg.space'), legend = view.querySelector('ul.legend');
  if (!map) return null;
  const shapes = root => [...root.querySelectorAll('polygon, circle, rect, path')];
  const fills = root => [...new Set(shapes(root).map(e => getComputedStyle(e).fill))];
  const glyphs = root => [...new Set([...root.querySelectorAll('text')]
      .map(t => t.textContent.replace(/[0-9]/g, '#')).join('').split(''))];
  return {
    mapFills: fills(map), legendFills: fills(legend),
    mapGlyphs: glyphs(map), legendGlyphs: glyphs(legend),
    hexTypes: [...new Set([...map.querySelectorAll('polygon.cell')].map(p =>
        [...p.classList].find(c => c.startsWith('h-'))))],
    keys: [...legend.querySelectorAll('li')].map(li => li.dataset.legend),
    texts: [...legend.querySelectorAll('li')].map(li => li.innerText.trim()),
    ships: map.querySelectorAll('.ship').length,
    missions: map.querySelectorAll('rect.mission').length,
    angel: map.querySelectorAll('.angel').length,
  };
}"""

#: Steps through the whole replay in the page, as a viewer pressing the right arrow key does,
#: reading each step once it is shown (one round trip to the browser for the whole walk).
WALK = """async () => {
  const legendFacts = LEGEND_FACTS_JS;
  const root = document.getElementById('replay');
  const last = parseInt(root.dataset.last, 10);
  const ready = n => new Promise(done => {
    if (root.getAttribute('data-ready') === String(n)) return done();
    const obs = new MutationObserver(() => {
      if (root.getAttribute('data-ready') === String(n)) { obs.disconnect(); done(); }
    });
    obs.observe(root, {attributes: true});
  });
  const steps = [];
  for (let s = 0; s <= last; s++) {
    if (s) {
      document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
      await ready(s);
    }
    const view = document.getElementById('step-view');
    view.querySelectorAll('.comment').forEach(e => e.remove());  // the bots' own words
    steps.push({
      text: view.innerText,
      choices: view.querySelectorAll('.choice').length,
      legend: (s % 4 === 0 || s === last) ? legendFacts(view) : null,
    });
  }
  return steps;
}""".replace("LEGEND_FACTS_JS", LEGEND_FACTS)


@pytest.fixture(scope="module")
def walks(browser, live_server, matches):  # noqa: ANN001, ANN201
    """Each replay walked once, step by step, in a real Chromium; shared by the checks below."""
    done: dict[str, tuple[str, list[dict]]] = {}

    def walk(which: str) -> tuple[str, list[dict]]:
        if which not in done:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            try:
                page.goto(f"{live_server}/matches/{matches[which]}")
                page.wait_for_selector("#replay[data-ready='0']")
                log = _visible_text(page, "#event-log")
                steps = page.evaluate(WALK)
            finally:
                context.close()
            assert errors == []
            done[which] = (log, steps)
        return done[which]

    return walk


@pytest.mark.parametrize("which", ["black_angel", "black_angel_solo", "solenia", "orbital", "orbital_solo"])
def test_no_internal_identifier_in_any_replay_step(walks, which) -> None:
    game = which.removesuffix("_solo")
    log, steps = walks(which)
    assert len(steps) > 20
    assert _readable(log, game) == [], "event log"
    for index, step in enumerate(steps):
        assert _readable(step["text"], game) == [], (index, step["text"][:400])
    # every decision showed its option's label (not its id), so the check above read them all
    assert sum(step["choices"] for step in steps) == len(steps) - 1


def test_event_log_uses_the_step_box_labels(page, live_server, matches) -> None:
    page.goto(f"{live_server}/matches/{matches['black_angel']}?step=5")
    page.wait_for_selector("#replay[data-ready='5']")
    for step in (5, 6, 7):
        if step > 5:
            page.keyboard.press("ArrowRight")
            page.wait_for_selector(f"#replay[data-ready='{step}']")
        box = page.locator("#step-view .decision .choice")
        entry = page.locator(f"#event-log li[data-step='{step}'] .choice")
        assert entry.inner_text() == box.inner_text()
        assert entry.get_attribute("data-option-id") == box.get_attribute("data-option-id")
        assert entry.inner_text() != entry.get_attribute("data-option-id")


@pytest.mark.parametrize("which", ["black_angel", "black_angel_solo"])
def test_black_angel_legend_names_every_colour_and_token_drawn(walks, which) -> None:
    _, steps = walks(which)
    drawn = {"ships": 0, "missions": 0, "angel": 0}
    checked = 0
    for index, step in enumerate(steps):
        facts = step["legend"]
        if facts is None:
            continue
        checked += 1
        missing = set(facts["mapFills"]) - set(facts["legendFills"])
        assert not missing, (index, "colours drawn but not in the legend", missing)
        glyphs = set(facts["mapGlyphs"]) - set(facts["legendGlyphs"])
        assert not glyphs, (index, "tokens drawn but not in the legend", glyphs)
        for hex_type in facts["hexTypes"]:
            assert hex_type in facts["keys"], (index, hex_type)
        for text in facts["texts"]:
            assert re.search(r"[A-Za-z]{3}", text) and not IDENTIFIER.search(text), text
        for key in drawn:
            drawn[key] += facts[key]
    assert checked >= len(steps) // 4
    # the walk saw ships, placed missions and the Black Angel, so the checks had work to do
    assert all(drawn.values()), drawn


def test_black_angel_legend_explains_the_pink_and_dark_hexes_and_the_icons(
    page, live_server, matches, busy_step
) -> None:
    page.goto(f"{live_server}/matches/{matches['black_angel']}?step={busy_step}")
    legend = page.locator("#step-view ul.legend")
    assert "pink: Ravager" in legend.locator("li[data-legend='h-ravager']").inner_text()
    assert "dark gray: asteroid" in legend.locator("li[data-legend='h-asteroid']").inner_text()
    assert "Ravager icon" in legend.locator("li[data-legend='icons']").inner_text()
    # each crew's ships are named by the bot's name in the legend
    for name in NAMES:
        assert legend.get_by_text(f"ship of {name} v1").count() == 1


def test_ships_are_drawn_inside_their_hex(page, live_server, matches, busy_step) -> None:
    page.goto(f"{live_server}/matches/{matches['black_angel']}?step={busy_step}")
    inside = page.evaluate(
        """() => [...document.querySelectorAll('#step-view svg.space g')].filter(g =>
              g.querySelector(':scope > .ship')).map(g => {
            const hex = g.querySelector('polygon.cell').getBoundingClientRect();
            return [...g.querySelectorAll(':scope > .ship path')].map(s => {
              const b = s.getBoundingClientRect();
              return b.left >= hex.left && b.right <= hex.right && b.top >= hex.top
                  && b.bottom <= hex.bottom && b.width >= 0.15 * hex.width;
            });
          }).flat()"""
    )
    assert inside and all(inside), inside


def test_empty_market_slots_are_full_size(page, live_server, matches, busy_step) -> None:
    page.goto(f"{live_server}/matches/{matches['black_angel']}?step={busy_step}")
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('#step-view .cardrow .tile')].map(t => {
            const b = t.getBoundingClientRect();
            return [t.classList.contains('empty'), b.width, b.height];
          })"""
    )
    full = [(w, h) for empty, w, h in sizes if not empty]
    empty = [(w, h) for e, w, h in sizes if e]
    assert full
    for w, h in empty:
        assert w >= 0.8 * min(x for x, _ in full) and h >= 0.8 * min(y for _, y in full)


def test_crews_fill_the_width(page, live_server, matches, busy_step) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server}/matches/{matches['black_angel']}?step={busy_step}")
    rects = page.evaluate(
        """() => [...document.querySelectorAll('#step-view .players > .player')]
              .map(p => p.getBoundingClientRect().top)"""
    )
    assert len(rects) == 3 and len(set(rects)) == 1  # three crews side by side, one row


def _buttons(page) -> dict[str, str | None]:  # noqa: ANN001
    return {
        g: page.locator(f"[data-goto='{g}']").get_attribute("aria-disabled")
        for g in ("first", "prev", "next", "last")
    }


def test_stepper_buttons_are_disabled_at_the_ends(page, live_server, matches) -> None:
    url = f"{live_server}/matches/{matches['solenia']}"
    page.goto(url)
    page.wait_for_selector("#replay[data-ready='0']")
    last = _last(page)
    assert _buttons(page) == {"first": "true", "prev": "true", "next": None, "last": None}
    back = page.locator("[data-goto='prev']")
    assert back.evaluate("e => getComputedStyle(e).pointerEvents") == "none"
    back.dispatch_event("click")  # even a scripted click stays put
    assert page.locator("#replay").get_attribute("data-step") == "0"
    page.get_by_role("link", name="Last step").click()
    page.wait_for_selector(f"#replay[data-ready='{last}']")
    assert _buttons(page) == {"first": None, "prev": None, "next": "true", "last": "true"}
    nxt = page.locator("[data-goto='next']")
    assert float(nxt.evaluate("e => getComputedStyle(e).opacity")) < 1
    nxt.dispatch_event("click")
    assert page.locator("#replay").get_attribute("data-step") == str(last)
    # the server renders the same state, before any script runs
    page.goto(f"{url}?step={last}")
    assert _buttons(page) == {"first": None, "prev": None, "next": "true", "last": "true"}
    page.get_by_role("link", name="Previous step").click()
    page.wait_for_selector(f"#replay[data-ready='{last - 1}']")
    assert _buttons(page) == {"first": None, "prev": None, "next": None, "last": None}
    assert page.js_errors == []


NO_MID_WORD_BREAK = """(sel) => [...document.querySelectorAll(sel)].flatMap(a =>
    [...a.childNodes].filter(n => n.nodeType === 3).flatMap(n => {
      const out = [];
      const words = n.textContent.split(' ');
      let at = 0;
      for (const w of words) {
        if (w) {
          const r = document.createRange();
          r.setStart(n, at); r.setEnd(n, at + w.length);
          const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
          if (lines.size > 1) out.push(w);
        }
        at += w.length + 1;
      }
      return out;
    }))"""


def test_tables_fit_a_390px_phone(browser, live_server, site, matches) -> None:
    with session_scope(site[0]) as s:  # a bot's page: its match history table
        bot_id = s.query(Bot.id).filter_by(name=NAMES[0], owner="black_angel-base-10").scalar()
    context = browser.new_context(viewport={"width": 390, "height": 800}, is_mobile=True)
    page = context.new_page()
    try:
        for path in (
            "/games/toy",
            "/games/black_angel",
            "/matches",
            f"/matches/{matches['black_angel']}",
            f"/bots/{bot_id}",
        ):
            page.goto(live_server + path)
            overflow = page.evaluate(
                """() => [...document.querySelectorAll('.table-wrap')]
                      .map(w => w.scrollWidth - w.clientWidth)"""
            )
            assert overflow and max(overflow) <= 1, (path, overflow)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, path
            # names wrap between words (and after _ - . /), never inside one
            assert page.evaluate(NO_MID_WORD_BREAK, "table td.name a, table td.name") == [], path
        page.goto(f"{live_server}/games/toy")
        assert page.get_by_role("link", name=LONG_NAME).is_visible()
        # the rank, the bot and its conservative rating stay; owner, μ, σ, dates collapse
        headers = page.locator("#leaderboard thead th:visible").all_inner_texts()
        assert any("Bot" in h for h in headers) and any("3σ" in h for h in headers)
        assert not any("Owner" in h or "Last match" in h for h in headers)
    finally:
        context.close()


@pytest.mark.parametrize(
    ("which", "name", "phone_anchor"),
    [
        ("black_angel", "black-angel-replay", "ba-space"),
        ("solenia", "solenia-replay", "sol-map"),
    ],
)
def test_replay_screenshots_desktop_and_phone(
    browser, live_server, site, matches, busy_step, tmp_path, which, name, phone_anchor
) -> None:
    step = {"black_angel": busy_step, "solenia": 41}.get(which)
    if step is None:
        with session_scope(site[0]) as s:
            step = min(150, Replay(s.get(Match, matches[which]).record).last - 2)
    for width, height, suffix in ((1280, 1800, ""), (390, 1400, "-phone")):
        context = browser.new_context(
            viewport={"width": width, "height": height}, is_mobile=width < 500
        )
        page = context.new_page()
        try:
            page.goto(f"{live_server}/matches/{matches[which]}?step={step}")
            page.wait_for_selector(f"#replay[data-ready='{step}']")
            anchor = "replay-title" if width > 500 else phone_anchor
            page.evaluate(f"() => document.getElementById('{anchor}').scrollIntoView()")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            _save_screenshot(page, f"{name}{suffix}.png", tmp_path)
        finally:
            context.close()
