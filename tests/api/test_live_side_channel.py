"""No live side channel between entrants (issue 26, item 5): while a match runs, WatchMatch (and
so an entrant's own dial-in or remote process watching its partner's match) shows no bot
comment and no per-decision time, unless the tournament's organiser turned live comments on;
the record at the end keeps both. Real server, real gRPC, real sandboxed bots; the live bus is
the in-process one here and Redis too (the feed is the same code for both, checked below)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from arena.sdk.client import pack_folder
from arena.workers import celery_app
from arena.workers.live import InProcessBus, RedisBus, match_feed
from referee._proto import arena_pb2 as pb
from tests.api.conftest import make_organiser, new_account
from tests.api.processes import REDIS_URL, redis_available

CHATTY = '''
import random
import time

from arena.sdk import serve_bot

rng = random.Random()


def start(match):
    rng.seed(f"{match['match_id']}:{match['seat']}")


def act(observation, legal_options):
    time.sleep(0.005)  # a match that lasts long enough to be watched live
    choice = rng.choice(legal_options).id
    return choice, f"psst {choice}"


if __name__ == "__main__":
    serve_bot(act, start=start)
'''


def _chatty_bots(stub, tmp_path: Path) -> list[int]:  # noqa: ANN001
    folder = tmp_path / "chatty"
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(CHATTY, encoding="utf-8")
    ids = []
    for i in range(2):
        author = new_account(stub, "chatty")  # one entry per author (arena.intake.authors)
        reply = stub.SubmitBot(pb.SubmitBotRequest(name=f"chatty-{uuid.uuid4().hex[:6]}-{i}", game="toy",
                                                   archive=pack_folder(folder), wait=True),
                               metadata=author.meta, timeout=120)
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
        ids.append(reply.bot.bot.id)
    return ids


def _watch_a_match(server, stub, ids: list[int], live_comments: bool) -> tuple[list[dict], dict, pb.Tournament]:  # noqa: ANN001
    """A match watched while it ran, with no forfeit. A toy match takes milliseconds, so the
    watch may begin after its end (then only the record comes); on a loaded host (CI) a seat
    may time out at start, and forced moves carry no comment either way. Such a match is
    played again."""
    for _ in range(5):
        live, record, t = _watch_one_match(server, stub, ids, live_comments)
        if not record["forfeits"] and any(e["type"] == "decision" for e in live):
            break
    return live, record, t


def _watch_one_match(server, stub, ids: list[int], live_comments: bool) -> tuple[list[dict], dict, pb.Tournament]:  # noqa: ANN001
    orga = new_account(stub, "orga")
    make_organiser(server, orga)
    t = stub.CreateTournament(pb.CreateTournamentRequest(name="quiet", game="toy", players=2, bot_ids=ids,
                                                         live_comments=live_comments), metadata=orga.meta)
    match_id = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.id)).matches[0].id
    events = list(stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id), timeout=120))
    assert events[-1].kind == pb.MATCH_EVENT_KIND_RECORD
    live = [json.loads(e.event_json) for e in events if e.kind == pb.MATCH_EVENT_KIND_LIVE]
    deadline = time.monotonic() + 60
    while stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id)).status != "done":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return live, json.loads(events[-1].record_json), t


@pytest.mark.skipif(not celery_app.app.conf.task_always_eager, reason="this process was started with a broker")
def test_watchers_of_a_running_match_get_no_comments_or_times_unless_the_tournament_allows(server, stub, tmp_path) -> None:  # noqa: ANN001
    ids = _chatty_bots(stub, tmp_path)

    live, record, t = _watch_a_match(server, stub, ids, live_comments=False)
    assert not t.live_comments
    decisions = [e for e in live if e["type"] == "decision"]
    assert len(decisions) > 5
    assert all(e["comment"] == "" and "wall_ms" not in e and "cpu_ms" not in e for e in decisions)
    assert "psst" not in json.dumps(live)
    assert all("ready_ms" not in e for e in live if e["type"] == "ready")
    # The record, at the end, keeps them.
    played = [d for d in record["decisions"] if not d["forced"]]
    assert played and all(d["comment"] == f"psst {d['option']}" and d["wall_ms"] > 0 for d in played)

    live, record, t = _watch_a_match(server, stub, ids, live_comments=True)
    assert t.live_comments
    assert stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id)).live_comments
    decisions = [e for e in live if e["type"] == "decision" and not e["forced"]]
    assert decisions and all(e["comment"] == f"psst {e['option']}" for e in decisions)
    assert all("wall_ms" not in e and "cpu_ms" not in e for e in decisions)  # times never go live


def _buses() -> list:
    return [
        pytest.param(InProcessBus, id="in-process"),
        pytest.param(lambda: RedisBus(REDIS_URL), id="redis",
                     marks=[pytest.mark.redis, pytest.mark.skipif(not redis_available(), reason="needs Redis")]),
    ]


@pytest.mark.parametrize("make_bus", _buses())
def test_the_feed_withholds_start_up_times_and_a_forfeits_own_words(make_bus) -> None:  # noqa: ANN001
    """What the referee gives its local caller (``arena play`` prints a forfeit's message) but a
    public feed must not: a seat's start-up time and a bot's own text in a forfeit message."""
    bus = make_bus()
    match_id = uuid.uuid4().hex
    feed = match_feed(match_id, bus, delay_s=0)
    feed.on_event({"type": "ready", "match_id": match_id, "ready_ms": [1234.5, 42.0], "forfeits": []})
    feed.on_event({"type": "forfeit", "match_id": match_id, "seat": 1, "reason": "illegal_option",
                   "message": "answered 'meet me at b7', which is not legal now", "decision": 3})
    feed.finish()
    events = [e for e in bus.watch(match_id, poll_s=0.05) if e is not None]
    assert [e["type"] for e in events] == ["ready", "forfeit"]
    assert "ready_ms" not in events[0] and events[0]["forfeits"] == []
    assert events[1]["message"] == "the bot answered an option id that is not legal"
    assert (events[1]["seat"], events[1]["reason"], events[1]["decision"]) == (1, "illegal_option", 3)
    assert "meet me" not in json.dumps(events)
