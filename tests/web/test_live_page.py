"""The live page of a running match: built from the public live stream only (web/live.py). The
seed stays hidden until the end; hidden choices show as "decided"; the board is the engine's
public view; when the match is over the page hands over to the replay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from markupsafe import escape

from arena.db import dispose_all, session_scope
from arena.db.session import DATABASE_ENV
from arena.records.recording import claim, create_match, record_result
from arena.workers.live import BROKER_ENV, match_feed
from referee import registry
from referee.match import audiences, live_decision, public_lines
from referee.record import Decision
from referee.rng import Rng
from tests.api.processes import REDIS_URL, redis_available
from tests.web.seed import add_bot, play_record
from web.app import create_app
from web.marks import live_words

SEED = 424242


@pytest.fixture(params=[
    pytest.param(None, id="no-redis"),
    pytest.param(REDIS_URL, id="redis", marks=[
        pytest.mark.redis, pytest.mark.skipif(not redis_available(), reason="needs Redis")]),
])
def running(request: pytest.FixtureRequest, tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FlaskClient, str, list[Decision], str]]:
    """A Black Angel match claimed by a worker that has streamed 40 decisions: without Redis
    through the database (what ``arena web`` in another process reads), or through Redis."""
    if request.param is None:
        monkeypatch.delenv(BROKER_ENV, raising=False)  # no Redis: the feed is mirrored to the database
    else:
        monkeypatch.setenv(BROKER_ENV, request.param)
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    monkeypatch.setenv(DATABASE_ENV, url)  # the database the worker records in (and writes live to)
    with session_scope(url) as s:
        vids = [add_bot(s, f"live-{i}", game="black_angel").id for i in range(2)]
        match_id = create_match(s, "black_angel", "base", vids, seed=SEED, sandbox=False).id
    with session_scope(url) as s:
        assert claim(s, match_id, "worker-1").outcome == "claimed"
    feed = match_feed(match_id)  # what a worker hands run_match
    on_event, on_view, finish = feed.on_event, feed.on_view, feed.finish
    state = registry.new_game("black_angel", 2, SEED, "base")
    on_event({"type": "start", "match_id": match_id, "opening_events": public_lines(state.opening_events())})
    rng, decisions = Rng(5), []
    for n in range(40):
        seat, ids = state.to_move(), state.option_ids()
        option = ids[rng.below(len(ids))]
        secret = state.option_audience(option)
        label = next(o.label for o in state.legal_options() if o.id == option)
        events = state.apply(option)
        decision = Decision(n, seat, option, 1.0, None, f"comment {option}", False, events,
                            None if secret is None else list(secret), audiences(events))
        decisions.append(decision)
        on_event(live_decision(match_id, decision, label))  # with its label, as run_match sends it
    on_view(state.public_view())
    finish(end=False)
    yield create_app(url).test_client(), match_id, decisions, url
    dispose_all()


def test_live_page_and_json_show_public_information_only(running) -> None:  # noqa: ANN001
    client, match_id, decisions, _ = running
    hidden_ids = {d.option for d in decisions if d.option_audience is not None}
    hidden_lines = {str(line) for d in decisions for line, a in zip(d.events, d.event_audiences, strict=True) if a}
    assert hidden_ids and hidden_lines, "40 Black Angel decisions include hidden choices and lines"

    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert str(SEED) not in page and "seed shown when the match is over" in page
    assert f"/matches/{match_id}/live" in page
    assert client.get(f"/api/matches/{match_id}").get_json()["seed"] is None

    data = client.get(f"/api/matches/{match_id}/live").get_json()
    assert data["status"] == "running" and data["decisions"] == 40
    assert [e["option"] for e in data["log"]] == [None if d.option_audience else d.option for d in decisions]
    assert all(e["private_choice"] == (d.option_audience is not None) for e, d in zip(data["log"], decisions, strict=True))
    assert data["view"]["seats"][0]["hand_missions"] >= 0 and "hand" not in data["view"]["seats"][0]
    # No bot comment while the match runs (issue 26: a live channel between colluding seats).
    assert all(e["comment"] == "" for e in data["log"])

    for path in (f"/matches/{match_id}/live", f"/matches/{match_id}/live/board"):
        html = client.get(path).get_data(as_text=True)
        assert "Action board" in html and "decided (a hidden choice)" in html
        assert not any(f"comment {d.option}" in html for d in decisions)  # comments come with the record
        assert not any(line in html for line in hidden_lines)
        assert str(SEED) not in html
    assert client.get(f"/matches/{match_id}/live/board").headers["X-Match-Status"] == "running"
    # the same board as /play, with each player's latest public move marked (issue #37 item 6)
    html = client.get(f"/matches/{match_id}/live/board").get_data(as_text=True)
    latest = {d.seat: d.n for d in decisions}
    for n in latest.values():
        assert html.count(f'data-last-move="{n}"') == 1, n
    # in the words a player reads at /play and in the replay (issue #37 item 6), never an id
    words = {d["n"]: live_words("black_angel", d) for d in data["log"]}
    assert not any(":" in w and " " not in w for w in words.values()), words  # no "to:12"
    for n in latest.values():
        assert str(escape(words[n])) in html, (n, words[n])
    assert "<code" not in html.split('id="live-log"', 1)[1]


def test_after_the_end_the_live_page_hands_over_to_the_replay(running) -> None:  # noqa: ANN001
    client, match_id, _, url = running
    with session_scope(url) as s:
        record_result(s, match_id, play_record(match_id, ["live-0 v1", "live-1 v1"], SEED, game="black_angel").to_dict())
    reply = client.get(f"/matches/{match_id}/live")
    # To the final result, not step 0 (issue 27).
    assert reply.status_code == 302 and reply.headers["Location"].endswith(f"/matches/{match_id}?step=end")
    last = client.get(f"/matches/{match_id}?step=end").get_data(as_text=True)
    assert last == client.get(f"/matches/{match_id}?step=999999").get_data(as_text=True)
    assert client.get(f"/api/matches/{match_id}").get_json()["seed"] == SEED
    assert f"seed {SEED}" in client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert client.get(f"/api/matches/{match_id}/live").get_json()["record_url"].endswith("/record")
