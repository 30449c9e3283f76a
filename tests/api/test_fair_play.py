"""Fair play, end to end: a Black Angel match run by a real worker is attacked while it runs,
through everything public (web pages, the JSON API, ``WatchMatch``, ``GetMatch``,
``ListMatches``); nothing there lets the attacker rebuild a hidden hand. After the end the full
record (seed included) is public and replays. And a bot's crash log is its owner's business.

The attack is the one that worked before: read the match's seed (it was on the match page and
in ``/api/matches/<id>``), start the engine from it and apply the option ids streamed live —
every hand and deck order, decision by decision.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToJson

from arena.sdk.client import ArenaClient
from arena.workers.live import BROKER_ENV
from referee import registry
from referee._proto import arena_pb2 as pb
from referee.record import MatchRecord
from referee.replay import replay
from tests.api.processes import ROOT, Deployment, deployment, private_redis_available
from web.app import create_app

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(not private_redis_available(), reason="needs redis-server to start a private broker"),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for sandboxed bots"),
]

BOTS = Path(__file__).parent / "bots"
RANDOM_BOT = ROOT / "sample_bots" / "random_bot"
RAISES_IN_ACT = ROOT / "tests" / "referee" / "hostile_bots" / "raises_in_act"
SECRET = "SECRET-STDERR"


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(tmp_path_factory.mktemp("fair")) as d:
        yield d


@pytest.fixture(scope="module")
def organiser(deployed: Deployment) -> str:
    with ArenaClient(deployed.address) as client:
        token = client.register("fair-organiser").token
    done = deployed.arena("organiser", "fair-organiser")
    assert done.returncode == 0, done.stderr
    return token


@pytest.fixture
def web(deployed: Deployment, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201 - a Flask test client
    """The website on the deployment's database, reading live events from its broker."""
    monkeypatch.setenv(BROKER_ENV, deployed.env[BROKER_ENV])
    return create_app(deployed.env["ARENA_DATABASE_URL"]).test_client()


def _submit(address: str, user: str, folder: Path, game: str, name: str) -> tuple[str, pb.SubmitBotReply]:
    with ArenaClient(address) as client:
        token = client.register(user).token
    with ArenaClient(address, token) as client:
        return token, client.submit(folder, game=game, name=name)


def _wait_done(client: ArenaClient, tournament_id: int, deadline_s: float = 180) -> pb.Tournament:
    deadline = time.monotonic() + deadline_s
    while True:
        t = client.tournament(tournament_id)
        if t.status in ("done", "failed") or time.monotonic() > deadline:
            return t
        time.sleep(0.3)


def _seed_values(data: Any) -> list[Any]:
    """Every value stored under a key that mentions a seed, anywhere in JSON data."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if "seed" in str(key).lower():
                found.append(value)
            found += _seed_values(value)
    elif isinstance(data, list):
        for item in data:
            found += _seed_values(item)
    return found


def _rebuild_hands(seed: int, live: list[dict[str, Any]]) -> list[list[int]] | None:
    """The attack: Black Angel from ``seed``, then the live option ids. None when it cannot go on."""
    try:
        state = registry.new_game("black_angel", 2, int(seed), "base")
        for event in live:
            if event.get("option") is None:
                return None  # a hidden choice: the attacker does not know what was chosen
            state.apply(event["option"])
    except Exception:  # noqa: BLE001 - a wrong seed soon meets an id that is not legal
        return None
    return [sorted(h) for h in state.hand_m]


class Attacker:
    """Everything an anonymous spectator can read while the match runs."""

    def __init__(self, address: str, web, match_id: str, tournament_id: int) -> None:  # noqa: ANN001
        self.address, self.web, self.match_id, self.tournament_id = address, web, match_id, tournament_id
        self.texts: list[str] = []  # every reply, as text
        self.jsons: list[Any] = []
        self.live: list[dict[str, Any]] = []  # WatchMatch's live events
        self.record_events: list[str] = []
        self.polls_while_running = 0
        self.boards: list[dict[str, Any]] = []

    def watch(self) -> None:
        with ArenaClient(self.address) as client:
            for event in client.watch(self.match_id, timeout=180):
                if event.kind == pb.MATCH_EVENT_KIND_LIVE:
                    self.texts.append(event.event_json)
                    self.live.append(json.loads(event.event_json))
                else:
                    self.record_events.append(event.record_json)

    def _status(self) -> tuple[str, list[str]]:
        with ArenaClient(self.address) as client:
            match = client.match(self.match_id)
            listed = client.matches(tournament_id=self.tournament_id)
        return match.summary.status, [MessageToJson(match), MessageToJson(listed)]

    def poll(self) -> str:
        """One round of reading everything public; returns the match's status. A round is kept
        only if the match was still running after it (else it may hold the published record)."""
        status, texts = self._status()
        if status != "running":
            return status
        jsons, boards = [], []
        mid = self.match_id
        for path in (f"/matches/{mid}", f"/matches/{mid}/live", f"/matches/{mid}/live/board", "/matches",
                     f"/tournaments/{self.tournament_id}"):
            texts.append(self.web.get(path).get_data(as_text=True))
        for path in (f"/api/matches/{mid}", f"/api/matches/{mid}/live", f"/api/matches?tournament={self.tournament_id}",
                     f"/api/tournaments/{self.tournament_id}", f"/api/matches/{mid}/record", f"/api/matches/{mid}/replay"):
            reply = self.web.get(path)
            jsons.append(reply.get_json())
            texts.append(reply.get_data(as_text=True))
        live = jsons[1]
        if live["view"] is not None and live["decisions"] > 0:
            boards.append(live["view"])
        after, more = self._status()
        if after != "running":
            return after
        # A running match: its page and API answer, but it has no public record or replay yet.
        assert [j.get("status") for j in jsons[-2:]] == [404, 404], jsons[-2:]
        self.texts += texts + more
        self.jsons += jsons
        self.boards += boards
        self.polls_while_running += bool(boards)
        return after


def test_a_live_match_gives_an_attacker_nothing_and_replays_after_the_end(
    deployed: Deployment, organiser: str, web
) -> None:  # noqa: ANN001
    ids = []
    for user in ("fair-ann", "fair-bob"):
        _, reply = _submit(deployed.address, user, BOTS / "paced_bot", "black_angel", f"{user}-paced")
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply
        ids.append(reply.bot.bot.id)
    with ArenaClient(deployed.address, organiser) as client:
        t = client.create_tournament(name="fair cup", game="black_angel", players=2, rounds=1, bot_ids=ids,
                                     decision_ms=3000, bank_ms=20000)
        target = client.matches(tournament_id=t.id).matches[-1].id

    attacker = Attacker(deployed.address, web, target, t.id)
    watcher = threading.Thread(target=attacker.watch)
    watcher.start()
    deadline = time.monotonic() + 180
    while attacker.poll() in ("pending", "running") and time.monotonic() < deadline:
        time.sleep(0.15)
    watcher.join(60)
    with ArenaClient(deployed.address) as client:
        assert _wait_done(client, t.id).status == "done", deployed.log_text()
    assert attacker.polls_while_running >= 3, "the attack needs a running match to look at"

    # After the end: the full record is public, with its seed, and replays exactly.
    record = web.get(f"/api/matches/{target}/record").get_json()
    seed = record["seed"]
    assert seed.bit_length() > 32, "a seed of 32 bits or fewer is found by trying them all"  # 2**-31 by chance
    replay(MatchRecord.from_dict(record))
    assert web.get(f"/api/matches/{target}").get_json()["seed"] == seed
    hidden_choices = [d for d in record["decisions"] if d["option_audience"] is not None]
    hidden_lines = {line for d in record["decisions"]
                    for line, who in zip(d["events"], d["event_audiences"], strict=True) if who is not None}
    assert hidden_choices and hidden_lines, "a Black Angel match always has hidden choices and lines"
    # No particular hidden id is required: which ones a game has depends on its secret seed, and
    # random play plays no mission card face down (``card:m…``) in ~1 game of 75 (300 random games).

    # 1. The seed was nowhere in public while the match ran (neither the number nor a field).
    running_texts = attacker.texts
    if seed >= 10**6:  # a short number could turn up by chance (a time in ms, say)
        assert not any(re.search(rf"(?<!\d){seed}(?!\d)", text) for text in running_texts)
    candidates = [v for data in attacker.jsons for v in _seed_values(data)]
    assert all(v is None for v in candidates), candidates
    # ... nor derivable from the tournament's seed, as match seeds used to be.
    for data in attacker.jsons:
        for tseed in _seed_values(data):
            for table in range(2):
                assert random.Random(f"{tseed}:0:{table}").getrandbits(31) != seed

    # 2. The live stream names no hidden choice and carries no hidden line.
    live_decisions = [e for e in attacker.live if e["type"] == "decision"]
    assert len(live_decisions) == len(record["decisions"])
    for live, full in zip(live_decisions, record["decisions"], strict=True):
        if full["option_audience"] is not None:
            assert live["option"] is None and live["private_choice"] is True
        else:
            assert live["option"] == full["option"]
        assert not set(live["events"]) & hidden_lines
    assert not any(line in text for line in hidden_lines for text in running_texts)
    assert not any(f'"{d["option"]}"' in text for d in hidden_choices for text in running_texts)

    # 3. The live board shows hand sizes, never a hand or a deck.
    for board in attacker.boards:
        assert "decks" not in board
        assert all("hand" not in seat and isinstance(seat["hand_missions"], int) for seat in board["seats"])

    # 4. The attack itself: every seed the attacker found, with the live ids, rebuilds nothing;
    #    the same attack with the real seed and the full record's ids (what it needed) does.
    truth = _rebuild_hands(seed, record["decisions"])
    assert truth is not None
    attempts = [_rebuild_hands(s, live_decisions) for s in candidates if isinstance(s, int)]
    attempts.append(_rebuild_hands(seed, live_decisions))  # even a leaked seed stops at a hidden choice
    assert truth not in attempts


def test_another_user_reading_a_crash_log_gets_nothing(deployed: Deployment, organiser: str, web) -> None:  # noqa: ANN001
    owner_token, crasher = _submit(deployed.address, "crash-carl", BOTS / "crash_in_matches", "toy", "carl-crash")
    assert crasher.version.status == pb.VERSION_STATUS_ACTIVE, crasher
    other_token, rival = _submit(deployed.address, "curious-dora", RANDOM_BOT, "toy", "dora-random")
    with ArenaClient(deployed.address, organiser) as client:
        t = client.create_tournament(name="crash cup", game="toy", players=2, rounds=1,
                                     bot_ids=[crasher.bot.bot.id, rival.bot.bot.id], decision_ms=1500, bank_ms=3000)
        assert _wait_done(client, t.id).status == "done", deployed.log_text()
        match_ids = [m.id for m in client.matches(tournament_id=t.id).matches]
    for mid in match_ids:
        def record_for(token: str | None) -> dict[str, Any]:
            with ArenaClient(deployed.address, token) as client:
                return json.loads(client.match(mid).record_json)  # noqa: B023

        forfeits = record_for(owner_token)["forfeits"]
        assert forfeits and SECRET in forfeits[0]["log_tail"], "the owner reads its bot's crash log"
        assert SECRET in json.dumps(record_for(organiser)), "so does an organiser"
        for reader in (None, other_token):
            seen = record_for(reader)
            assert SECRET not in json.dumps(seen)
            assert seen["forfeits"][0]["reason"] == "bot_error" and "log_tail" not in seen["forfeits"][0]
        with ArenaClient(deployed.address) as client:
            streamed = [e.record_json for e in client.watch(mid, timeout=30)]
        assert streamed and all(SECRET not in text for text in streamed)
        for path in (f"/matches/{mid}", f"/api/matches/{mid}", f"/api/matches/{mid}/record", f"/api/matches/{mid}/replay"):
            page = web.get(path).get_data(as_text=True)
            assert SECRET not in page, path
        assert "bot_error" in web.get(f"/matches/{mid}").get_data(as_text=True)

    # A qualification log: the refused version's stderr tail is its owner's only.
    _, refused = _submit(deployed.address, "crash-erin", RAISES_IN_ACT, "toy", "erin-raises")
    assert refused.version.status == pb.VERSION_STATUS_REFUSED and refused.version.refusal.log_tail
    bot_id = refused.bot.bot.id
    for reader in (None, other_token):
        with ArenaClient(deployed.address, reader) as client:
            version = client.bot(bot_id).versions[0]
            status = client.version_status(bot_id)
        assert version.refusal.kind and not version.refusal.log_tail
        assert not status.refusal.log_tail and "Traceback" not in status.qualification_record_json
    with ArenaClient(deployed.address, organiser) as client:
        assert "Traceback" in client.bot(bot_id).versions[0].refusal.log_tail
