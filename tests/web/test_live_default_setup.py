"""Issue 27, item 1: the live page works on the README's embedded default — ``arena serve`` and
``arena web`` as two processes on one fresh SQLite file, no Redis — not only with Redis and a
worker.

The server plays the ladder's matches itself (no broker: its ladder ticker and in-process pool);
the site sees a match only through what the server writes to the database
(arena.workers.live_table). Chromium watches the board change while the match runs and, at the
end, lands on the final result (not step 0)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from arena.competition import ladder
from arena.db import LiveBoard, LiveEvent, Match, dispose_all, session_scope
from arena.db.session import DATABASE_ENV
from arena.intake import bots
from arena.workers.live import BROKER_ENV, DELAY_ENV

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"

#: A random bot that thinks a little, so the match lasts a few seconds.
SLOW_BOT = """
import random, time
from arena.sdk import serve_bot
rng = random.Random(1)
def act(observation, legal_options):
    time.sleep(0.04)
    return rng.choice(legal_options).id
if __name__ == "__main__":
    serve_bot(act)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(params=["solenia", "orbital"])
def default_setup(request: pytest.FixtureRequest, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """A fresh SQLite, no Redis, ``arena serve`` and ``arena web`` each in its own process, as
    the README starts them; yields (site URL, id of the ladder match the server is playing) of
    a match of the parameter's game."""
    game = request.param
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.delenv(BROKER_ENV, raising=False)
    monkeypatch.delenv(DELAY_ENV, raising=False)
    monkeypatch.setenv(DATABASE_ENV, url)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path))
    dispose_all()
    with session_scope() as s:
        for i in range(2):
            folder = tmp_path / f"slow{i}"
            folder.mkdir()
            (folder / "bot.py").write_text(SLOW_BOT)
            bots.register_version(s, game, str(folder), name=f"slow{i}")
        # One ladder match at a time, played by the server itself (no broker).
        ladder.ensure_ladder(s, game, queue_target=1, sandbox=False, house=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_LADDER_TICK": "0.5"}
    web_port, api_port = _free_port(), _free_port()
    commands = {"serve": ["--port", str(api_port), "--host", "127.0.0.1"], "web": ["--port", str(web_port)]}
    procs = [subprocess.Popen([sys.executable, "-m", "arena", name, *args], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=(tmp_path / f"{name}.log").open("wb"))
             for name, args in commands.items()]
    site = f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 90
        match_id = None
        while match_id is None:
            try:
                urllib.request.urlopen(site + "/", timeout=5).read()
                with session_scope() as s:
                    match_id = s.scalar(select(Match.id).where(Match.status == "running"))
            except OSError:
                pass
            for proc in procs:
                if proc.poll() is not None or time.monotonic() > deadline:
                    logs = {name: (tmp_path / f"{name}.log").read_text()[-1500:] for name in commands}
                    raise RuntimeError(f"no match running on the server: {logs}")
            time.sleep(0.2)
        yield site, match_id
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
        dispose_all()


def _board(page) -> str:  # noqa: ANN001
    return page.locator("#live-board").inner_html()


def test_the_live_page_follows_a_match_on_sqlite_without_redis_then_shows_the_result(
    page, default_setup, tmp_path: Path  # noqa: ANN001
) -> None:
    site, match_id = default_setup
    page.goto(f"{site}/matches/{match_id}/live")

    status = page.locator("#live-status")
    expect(status).not_to_have_attribute("data-decisions", "0", timeout=30000)
    expect(page.locator("#live-board svg, #live-board table").first).to_be_visible(timeout=15000)
    first = _board(page)
    seen = int(status.get_attribute("data-decisions") or 0)
    # The board and the count change while the match runs (live.js polls once a second).
    page.wait_for_function(
        "([n, html]) => { const s = document.getElementById('live-status');"
        " return s && +s.dataset.decisions > n && document.getElementById('live-board').innerHTML !== html; }",
        arg=[seen, first], timeout=30000)
    with session_scope() as s:
        assert s.get(Match, match_id).status == "running", "seen live, while the match runs"
    live = page.request.get(f"{site}/api/matches/{match_id}/live").json()
    assert live["live"] is True and live["decisions"] > 0 and live["view"]
    assert all(e["comment"] == "" for e in live["log"])  # what the public feed carries, no more
    # Screenshots to look at (docs/screenshots with ARENA_UPDATE_SCREENSHOTS=1).
    shots = SHOTS if os.environ.get("ARENA_UPDATE_SCREENSHOTS") else Path(os.environ.get("ARENA_SHOT_DIR", tmp_path))
    game = page.locator("h1").inner_text().split(" match ")[0]
    prefix = "live" if game == "Solenia" else "live-orbital"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1281
    page.screenshot(path=str(shots / f"{prefix}.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
    page.screenshot(path=str(shots / f"{prefix}-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # At the end: the replay at its last step, with the engine's final result.
    page.wait_for_url(f"{site}/matches/{match_id}?step=end", timeout=120000)
    with session_scope() as s:
        assert s.get(Match, match_id).status == "done"
    replay = page.locator("#replay")
    assert replay.get_attribute("data-step") == replay.get_attribute("data-last") != "0"
    expect(page.get_by_test_id("final-result")).to_be_visible()
    assert page.js_errors == []
    page.screenshot(path=str(Path(os.environ.get("ARENA_SHOT_DIR", tmp_path)) / "live-ended.png"))
    with session_scope() as s:  # the match's live rows went with its end marker
        assert s.scalar(select(func.count()).select_from(LiveEvent).where(LiveEvent.match_id == match_id)) == 0
        assert s.scalar(select(func.count()).select_from(LiveBoard).where(LiveBoard.match_id == match_id)) == 0
