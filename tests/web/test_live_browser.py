"""The live page in a real Chromium: its board and log follow the match as the worker streams
it (live.js polls), hidden choices show only as "decided", and at the end the page goes to the
replay."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from arena.db import session_scope
from arena.db.session import DATABASE_ENV
from arena.records.recording import claim, create_match, record_result
from arena.workers.live import BROKER_ENV, match_feed
from referee import registry
from referee.match import audiences, live_decision
from referee.record import Decision
from referee.rng import Rng
from tests.web.seed import add_bot, play_record

pytestmark = pytest.mark.browser

SEED = 8675309


def test_live_page_follows_the_match_then_shows_the_replay(page, live_server, site, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.delenv(BROKER_ENV, raising=False)  # no Redis: the feed is mirrored to the database
    url, _ = site
    monkeypatch.setenv(DATABASE_ENV, url)  # the database the worker records in (and writes live to)
    with session_scope(url) as s:
        # names of this attempt's own: a rerun (--reruns) adds its bots beside the first try's
        tag = uuid.uuid4().hex[:6]
        vids = [add_bot(s, f"browser-live-{tag}-{i}", game="black_angel").id for i in range(2)]
        match_id = create_match(s, "black_angel", "base", vids, seed=SEED, sandbox=False).id
    with session_scope(url) as s:
        assert claim(s, match_id, "worker-b").outcome == "claimed"
    feed = match_feed(match_id)  # what a worker hands run_match
    on_event, on_view, finish = feed.on_event, feed.on_view, feed.finish
    state, rng, hidden = registry.new_game("black_angel", 2, SEED, "base"), Rng(9), []

    def play(count: int) -> None:
        for _ in range(count):
            n, seat, ids = len(hidden), state.to_move(), state.option_ids()
            option = ids[rng.below(len(ids))]
            secret = state.option_audience(option)
            events = state.apply(option)
            hidden.append(option if secret is not None else None)
            on_event(live_decision(match_id, Decision(n, seat, option, 1.0, None, "", False, events,
                                                      None if secret is None else list(secret), audiences(events))))
        on_view(state.public_view())

    play(10)
    page.goto(f"{live_server}/matches/{match_id}/live")
    status = page.locator("#live-status")
    expect(status).to_have_attribute("data-decisions", "10", timeout=15000)  # polls: a loaded machine
    # the board may come a poll after the count: the feed's events and its view are written apart
    expect(page.locator("#live-board").get_by_text("Action board")).to_be_visible(timeout=15000)
    play(30)
    expect(status).to_have_attribute("data-decisions", "40", timeout=15000)
    html = page.content()
    secret_ids = [o for o in hidden if o is not None]
    assert secret_ids and "decided (a hidden choice)" in html
    assert not any(f">{o}<" in html for o in secret_ids) and str(SEED) not in html
    assert page.js_errors == []

    finish(end=False)
    with session_scope(url) as s:
        record_result(s, match_id, play_record(match_id, ["a v1", "b v1"], SEED, game="black_angel").to_dict())
    page.wait_for_url(f"{live_server}/matches/{match_id}?step=end", timeout=15000)  # the result, not step 0
    assert f"seed {SEED}" in page.content()
