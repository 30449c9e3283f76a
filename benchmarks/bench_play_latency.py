"""How soon a seat's page shows the bot's reply (issue #37 item 9): from the moment the referee
asks the person (right after the bot's move was applied) to the moment ``/play``'s page shows the
person's next decision, in Chromium on the README's default set-up.

The site is ``arena serve`` and ``arena web`` as two processes on a fresh SQLite file (no Redis),
started from ``--root`` (default: this tree; give an older checkout to measure it the same
way). Chromium plays ``--games`` 2-player games of each game against ``house-random`` (a bot that
answers at once, so what is measured is the page's own delay), clicking a lit place of the board
(or a button of the action bar) at every decision. The referee's ask time is read from the page:
the person's clock is ``ARENA_HUMAN_DECISION_S`` seconds a decision with no bank, so the seat
row's deadline (``data-deadline``) is the ask's ``time.time()`` plus exactly that. The page's
time is ``Date.now()`` when ``#seat`` first carries the new decision (a MutationObserver). Both
clocks are this machine's.

    PYTHONPATH=$PWD python -m benchmarks.bench_play_latency [--root DIR] [--moves 30]

Prints one JSON line: the median, p90 and max in ms over every decision shown, and the count;
the same of the page's own swap after the server's answer (``play.js``'s ``play-swap`` measure:
the answer received to the new board drawn; issue #37 item 9 asks for 100 ms), and the first
contentful paint of ``/play`` (item 9: under 1 s). The browser tests play whole games on the
board too, but assert no times: on a shared machine a test cannot tell a slow page from a busy
host, so the times are this benchmark's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
DECISION_S = 600.0

#: Records each new decision the page shows, with the deadline it carries and the page's time.
_OBSERVE = """
window.__shown = [];
document.addEventListener('DOMContentLoaded', () => {
  const note = () => {
    const s = document.getElementById('seat');
    if (!s || !s.dataset.decision || !s.dataset.deadline) return;
    const last = window.__shown[window.__shown.length - 1];
    if (last && last.decision === s.dataset.decision) return;
    window.__shown.push({decision: s.dataset.decision, deadline: parseFloat(s.dataset.deadline), at: Date.now()});
  };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                     attributeFilter: ['data-decision']});
  note();
});
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _site(root: Path, home: Path) -> tuple[str, list[subprocess.Popen]]:
    env = {**os.environ, "PYTHONPATH": str(root), "ARENA_DATABASE_URL": f"sqlite:///{home / 'arena.sqlite3'}",
           "ARENA_HOME": str(home), "ARENA_HUMAN_DECISION_S": str(DECISION_S),
           "ARENA_HUMAN_GAMES_PER_CLIENT": "8"}
    env.pop("ARENA_BROKER_URL", None)
    env.pop("ARENA_LIVE_DELAY_S", None)
    web, api = _free_port(), _free_port()
    procs = [subprocess.Popen([sys.executable, "-m", "arena", *args], env=env, cwd=root,
                              stdout=subprocess.DEVNULL, stderr=(home / f"{args[0]}.log").open("wb"))
             for args in (["serve", "--port", str(api), "--host", "127.0.0.1"], ["web", "--port", str(web)])]
    site = f"http://127.0.0.1:{web}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(site + "/play", timeout=5).read()
            return site, procs
        except OSError:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError((home / "web.log").read_text()[-1500:]) from None
            time.sleep(0.3)


#: The first contentful paint of the page, in ms from its navigation, waiting for it if it has
#: not come yet (-1: never). The browser tests read it too.
FIRST_PAINT = """() => new Promise(done => {
  const seen = performance.getEntriesByName('first-contentful-paint');
  if (seen.length) return done(seen[0].startTime);
  new PerformanceObserver(list => {
    const fcp = list.getEntries().filter(e => e.name === 'first-contentful-paint');
    if (fcp.length) done(fcp[0].startTime);
  }).observe({type: 'paint', buffered: true});
  setTimeout(() => done(-1), 5000);
})"""


def _play(page, site: str, game: str, moves: int, rng: random.Random) -> float:  # noqa: ANN001
    """Plays ``moves`` of ``game`` on the board; the first paint of ``/play``'s form, in ms."""
    page.goto(f"{site}/play?game={game}&players=2")
    paint = float(page.evaluate(FIRST_PAINT))
    page.select_option("#p-seat", "1")
    page.select_option("#p-opp1", "house-random")
    page.click("#p-start")
    page.wait_for_url(f"{site}/play/*")
    for _ in range(moves):
        page.wait_for_selector("#your-turn, #play-result", timeout=30000)
        if page.locator("#play-result").count():
            return paint
        decision = page.locator("#seat").get_attribute("data-decision")
        for _part in range(8):
            choices = page.locator("[data-board] [data-choice]")
            count = choices.count()
            if not count:  # the page is being swapped: look again
                page.wait_for_timeout(50)
                continue
            choices.nth(rng.randrange(count)).click()
            if page.locator("#seat").get_attribute("data-decision") != decision or \
                    page.locator("#play-main[aria-busy=true]").count():
                break
        page.wait_for_function(
            "d => document.querySelector('#play-result') || (document.querySelector('#your-turn') "
            "&& document.getElementById('seat').dataset.decision !== d)", arg=decision, timeout=30000)
    page.evaluate("(() => { const l = document.getElementById('leave'); if (l) { l.open = true;"
                  " document.getElementById('resign').click(); } })()")
    return paint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--moves", type=int, default=30, help="the person's moves per game")
    parser.add_argument("--games", type=int, default=1, help="games of each game")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-play-"))
    site, procs = _site(args.root.resolve(), home)
    delays: list[float] = []
    swaps: list[float] = []
    paints: list[float] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            rng = random.Random(7)
            for game in ("black_angel", "orbital", "solenia") * args.games:
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.add_init_script(_OBSERVE)
                page = context.new_page()
                paints.append(_play(page, site, game, args.moves, rng))
                swaps += page.evaluate("performance.getEntriesByName('play-swap').map(e => e.duration)")
                shown = page.evaluate("window.__shown")
                # the first decision came with the page load (a navigation): not a reply shown
                for s in shown[1:]:
                    delays.append((s["at"] / 1000.0 - (s["deadline"] - DECISION_S)) * 1000.0)
                context.close()
            browser.close()
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
    delays.sort()
    swaps.sort()
    print(json.dumps({
        "root": str(args.root), "shown": len(delays),
        "median_ms": round(statistics.median(delays), 1),
        "p90_ms": round(delays[int(len(delays) * 0.9)], 1), "max_ms": round(delays[-1], 1),
        "swaps": len(swaps),
        "swap_median_ms": round(statistics.median(swaps), 1) if swaps else None,
        "swap_p90_ms": round(swaps[int(len(swaps) * 0.9)], 1) if swaps else None,
        "first_paint_ms": [round(x) for x in paints],
        "load": os.getloadavg()[0],
    }))


if __name__ == "__main__":
    main()
