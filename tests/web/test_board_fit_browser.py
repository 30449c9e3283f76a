"""Every game's replay in a real Chromium at a desktop (1280 px) and a phone (390 px) width, with
every details panel open: no text label is clipped or spills out of its box, and the page never
scrolls sideways (a wide table or station scrolls inside its own box). Also takes the Orbital
replay screenshots for docs/screenshots (issue #27: Orbital's module names were cut to seven
letters at about 7 px, and the match details made a phone page 539 px wide)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.db import Match, session_scope
from arena.records.recording import create_match, record_result
from referee import registry
from referee.orbital.data import CARD_NAME, MODULE_COUNT
from tests.web.seed import add_bot, play_record
from web.replay import Replay

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = (1280, 390)
#: Long unbroken bot names, as contestants pick them: a name cell must wrap, not widen the page.
LONG_NAMES = ("an_extremely_long_bot_name_that_has_no_spaces_at_all", "MonteCarloTreeSearchWithProgressiveWideningV12")

#: Every element holding text is checked, but these are meant to hide their text (screen-reader
#: only) and so are not labels.
MEASURE = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('svg') || el.closest('.visually-hidden')) continue;
    const cs = getComputedStyle(el);
    if (['inline', 'none', 'contents'].includes(cs.display)) continue;
    if (!el.getClientRects().length) continue;
    const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!text) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      bad.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}: ${el.textContent.trim().slice(0, 40)}`);
    }
  }
  let widest = null;
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && !el.closest('.table-wrap, .station-scroll, .log')) {
      widest = `${el.tagName.toLowerCase()}.${el.className} in ${el.parentElement.tagName}.${el.parentElement.className} right edge ${Math.round(r.right)}: ${el.textContent.trim().slice(0, 60)}`;
      break;
    }
  }
  return {bad, page: document.documentElement.scrollWidth, width: window.innerWidth, widest};
}"""


def _engine_match(url: str, game: str, players: int, seed: int) -> str:
    """A finished match of a real engine whose bots have long unbroken names."""
    variant = registry.get_spec(game).default_variant
    with session_scope(url) as s:
        names = [f"{LONG_NAMES[i % 2]}{i}" for i in range(players)]
        vids = [add_bot(s, n, game=game, owner="owner_with_a_long_name_too").id for n in names]
        match_id = create_match(s, game, variant, vids, seed=seed, sandbox=False).id
    record = play_record(match_id, [f"{n} v1" for n in names], seed, game=game, variant=variant)
    with session_scope(url) as s:
        record_result(s, match_id, record.to_dict())
    return match_id


@pytest.fixture(scope="module")
def matches(site) -> dict[str, str]:  # noqa: ANN001
    url = site[0]
    return {
        "black_angel": _engine_match(url, "black_angel", 3, 5),
        "orbital": _engine_match(url, "orbital", 3, 7),
        "solenia": _engine_match(url, "solenia", 3, 11),
    }


def _busiest_orbital_step(url: str, match_id: str) -> int:
    """The step whose stations show the most damage, crew and modules: the hardest to fit."""
    with session_scope(url) as s:
        record: dict[str, Any] = s.get(Match, match_id).record
    replay = Replay(record)
    best, best_score = 0, -1
    for index in range(0, replay.last + 1, 3):
        stations = replay.step(index).view["stations"]
        score = sum(len(st["modules"]) + 6 * sum(1 for m in st["modules"] if m["damage"])
                    + 2 * sum(m["crew"] for m in st["modules"]) for st in stations)
        if score > best_score:
            best, best_score = index, score
    return best


def _check_fits(page, where: str) -> None:  # noqa: ANN001
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    got = page.evaluate(MEASURE)
    assert got["bad"] == [], f"{where}: clipped labels {got['bad'][:8]}"
    assert got["page"] <= got["width"], f"{where}: page {got['page']} px wide in {got['width']} px ({got['widest']})"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("game", ["black_angel", "orbital", "solenia"])
def test_replay_fits_with_details_open(page, live_server, site, matches, game: str, width: int) -> None:  # noqa: ANN001
    match_id = matches[game]
    page.set_viewport_size({"width": width, "height": 900})
    with session_scope(site[0]) as s:
        last = len(s.get(Match, match_id).record["decisions"])
    for step in (last // 2, last):
        page.goto(f"{live_server}/matches/{match_id}?step={step}")
        page.wait_for_selector("#replay[data-ready]")
        assert page.locator("details").count() >= 1
        _check_fits(page, f"{game} step {step} at {width} px")
    assert page.js_errors == []


def _save(page, name: str, tmp_path: Path) -> None:  # noqa: ANN001
    shot = tmp_path / name
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 5_000
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" or not (DOCS / name).exists():
        shutil.copyfile(shot, DOCS / name)


@pytest.mark.parametrize(("width", "name"), [(1280, "orbital-replay.png"), (390, "orbital-replay-phone.png")])
def test_orbital_station_names_are_whole_and_legible(page, live_server, site, matches, tmp_path, width: int, name: str) -> None:  # noqa: ANN001
    match_id = matches["orbital"]
    step = _busiest_orbital_step(site[0], match_id)
    page.set_viewport_size({"width": width, "height": 1100 if width > 400 else 844})
    page.goto(f"{live_server}/matches/{match_id}?step={step}")
    page.wait_for_selector("#replay[data-ready]")
    names = page.locator("#step-view .station-map .mod-name")
    assert names.count() >= 9
    sizes = page.evaluate("""() => [...document.querySelectorAll('#step-view .station-map .mod-name')].map(e => ({
        text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize), lines: Math.round(e.getBoundingClientRect().height /
        parseFloat(getComputedStyle(e).lineHeight)), over: e.scrollWidth - e.clientWidth}))""")
    for s in sizes:
        assert s["size"] >= 12, s
        assert s["over"] <= 1, s
        assert s["lines"] <= len(s["text"].split()), s
    # the engine's names, whole (the old picture cut them to seven letters)
    with session_scope(site[0]) as s:
        record = s.get(Match, match_id).record
    view = Replay(record).step(step).view
    expected = sorted(m["card"]["name"] for st in view["stations"] for m in st["modules"])
    assert sorted(t["text"] for t in sizes) == expected
    # every tile of a station fills its share of the box: the tiles span the station's width
    fill = page.evaluate("""() => [...document.querySelectorAll('#step-view .station-scroll')].map(box => {
        const map = box.querySelector('.station-map');
        return {box: box.clientWidth, map: map.scrollWidth, tiles: map.querySelectorAll('.module').length};
    })""")
    for f in fill:
        assert f["map"] >= f["box"] - 1, fill  # no empty strip beside the grid
    # damage, crew and connections are drawn, and the legend explains them
    html = page.locator("#step-view").inner_html()
    assert page.locator("#step-view .station-map .link").count() >= len(expected) - 3
    assert page.locator("#step-view .station-map .mod-damage").count() >= 1
    assert page.locator("#step-view .station-map .mod-crew").count() >= 1
    legend = page.locator("#step-view .orbital-legend").inner_text()
    for word in ("damaged", "crew", "connection", "free exit", "core module", "end module", "bio", "military"):
        assert word in legend, word
    assert "svg class=\"station-map" not in html
    # each tile's summary is for screen readers only: nothing of it shows on the tile
    hidden = page.evaluate("""() => [...document.querySelectorAll('#step-view .station-map .visually-hidden')].map(e => {
        const r = e.getBoundingClientRect(); return r.width * r.height; })""")
    assert hidden and max(hidden) <= 1, hidden
    _check_fits(page, f"orbital busiest step {step} at {width} px")
    page.evaluate("() => document.querySelector('#step-view .orbital-legend').scrollIntoView()")
    _save(page, name, tmp_path)
    # wraps between words, never inside one: each word's text lies on a single line box — also
    # for the module names with the longest words, written into the first tiles (this match
    # may not have built them)
    longest = sorted({w for i in range(MODULE_COUNT) for w in CARD_NAME[i].split()}, key=len)[-4:]
    page.evaluate("""(words) => [...document.querySelectorAll('#step-view .station-map .mod-name')]
        .slice(0, words.length).forEach((e, i) => { e.textContent = words[i]; })""", longest)
    broken = page.evaluate("""() => {
        const out = [];
        for (const el of document.querySelectorAll('#step-view .station-map .mod-name')) {
            for (const node of el.childNodes) {
                if (node.nodeType !== 3) continue;
                for (const m of node.textContent.matchAll(/\\S+/g)) {
                    const r = document.createRange();
                    r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
                    const tops = new Set([...r.getClientRects()].map(c => Math.round(c.top)));
                    if (tops.size > 1) out.push(m[0]);
                }
            }
        }
        return out;
    }""")
    assert broken == [], f"module names broken inside a word at {width} px: {broken}"
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "suffix"), [(1280, ""), (390, "-phone")])
def test_glossary_and_leaderboard_fit(page, live_server, tmp_path, width: int, suffix: str) -> None:  # noqa: ANN001
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server}/games/toy")
    _check_fits(page, f"leaderboard at {width} px")
    page.get_by_role("link", name="What the words mean").click()
    page.wait_for_url("**/glossary#ratings")
    assert page.locator("dl.glossary dt").count() >= 30
    _check_fits(page, f"glossary at {width} px")
    page.evaluate("() => window.scrollTo(0, 0)")
    _save(page, f"glossary{suffix}.png", tmp_path)
    assert page.js_errors == []
