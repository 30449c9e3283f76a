"""Bots that dial in (``Arena.ConnectBot``): no listening port, matches relayed by the server,
a cut connection forfeits that match as ``disconnected`` and the bot plays the next ones.

Real parts throughout: the in-process Arena server on a real socket, the dialling bot's own
gRPC stream to it, and the referee reaching the bot through the server's relay over gRPC.
"""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from arena.competition import dialin_presence as dialin
from arena.sdk.connect import ConnectError, DialInBot
from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee._proto import bot_pb2
from referee.bot_client import BotClient, BotFault
from tests.api.conftest import make_organiser, new_account


def first_option(observation: dict, options: list) -> str:  # noqa: ARG001
    return options[0].id


class Running:
    """A DialInBot on a thread, stopped at the end of the test."""

    def __init__(self, bot: DialInBot) -> None:
        self.bot = bot
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.bot.run()
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc

    def stop(self) -> None:
        self.bot.stop()
        self.thread.join(10)


def dial(server, token: str, name: str, act=first_option, game: str = "toy") -> DialInBot:  # noqa: ANN001
    return DialInBot(act, server.address, token, name, game, backoff_s=0.05)


def wait_for(predicate, timeout: float = 60.0, what: str = "") -> None:  # noqa: ANN001
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def done_matches(stub, bot_id: int) -> list[pb.MatchSummary]:  # noqa: ANN001
    reply = stub.ListMatches(pb.ListMatchesRequest(bot_id=bot_id, status="done", page_size=100))
    return sorted(reply.matches, key=lambda m: m.finished_at)


def seat_of(match: pb.MatchSummary, bot_id: int) -> pb.MatchSeat:
    return next(s for s in match.seats if s.bot_id == bot_id)


def test_a_dialling_bot_qualifies_and_plays_ladder_matches_then_survives_a_cut(server, stub, running) -> None:  # noqa: ANN001
    owner = new_account(stub, "dial")
    first = Running(dial(server, owner.token, "dial-a"))
    running.append(first)
    assert first.bot.welcomed.wait(20), first.error
    assert first.bot.welcome.qualifying
    bot_id = first.bot.welcome.bot.bot.id

    def active() -> bool:
        return stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status == pb.VERSION_STATUS_ACTIVE

    wait_for(active, what="the dial-in bot's qualification")
    status = stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id))
    assert status.kind == "remote" and status.address == dialin_client.source(owner.name, "toy", "dial-a")

    # An opponent that dials in too; cut its connection on its 3rd decision of one match.
    cut = {"match": None, "decisions": 0}
    second_bot: list[DialInBot] = []

    def cutting(observation: dict, options: list) -> str:
        cut["decisions"] += 1
        if cut["decisions"] == 3 and cut["match"] is None:
            cut["match"] = "pending"
            second_bot[0].drop()
            time.sleep(0.3)  # the answer goes nowhere: the stream is gone
        return options[0].id

    second_bot.append(dial(server, owner.token, "dial-b", act=cutting))
    second = Running(second_bot[0])
    running.append(second)
    assert second.bot.welcomed.wait(20), second.error
    second_id = second.bot.welcome.bot.bot.id
    # Its qualification match is the cut one (its first match): refused as disconnected.
    wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=second_id, number=1)).status
             != pb.VERSION_STATUS_QUALIFYING, what="the second bot's qualification")
    refused = stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=second_id, number=1), metadata=owner.meta)
    assert refused.status == pb.VERSION_STATUS_REFUSED
    assert refused.refusal.kind == "disconnected", refused.refusal
    assert "connection dropped" in refused.refusal.message
    # It reconnects by itself; the new connection qualifies it again (a refused bot is retried).
    wait_for(lambda: second.bot.connections >= 2, what="the reconnection")
    wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=second_id)).status
             == pb.VERSION_STATUS_ACTIVE, what="the second qualification")

    organiser = new_account(stub, "org")
    make_organiser(server, organiser)
    stub.StartLadder(pb.StartLadderRequest(game="toy"), metadata=organiser.meta)
    try:
        from arena.workers import tasks

        tasks.ladder_tick_all()
        wait_for(lambda: len(done_matches(stub, bot_id)) >= 2, what="two ladder matches")
    finally:
        stub.StopLadder(pb.StopLadderRequest(game="toy"), metadata=organiser.meta)
    ladder = [m for m in done_matches(stub, bot_id) if m.tournament_id == 0]
    assert ladder, "no ladder match with the dial-in bot"
    for m in ladder:
        assert seat_of(m, bot_id).forfeit_reason == ""
    assert first.error is None and second.error is None


def test_a_cut_mid_match_forfeits_that_match_as_disconnected_and_the_next_one_is_played(server, stub, running) -> None:  # noqa: ANN001
    """Straight through the referee (``run_match``), so the cut match and the next one are
    exactly known: seat 0 dials in, seat 1 is the sample random bot."""
    from referee.match import MatchConfig, SeatSpec, run_match
    from tests.api.conftest import FAST_TC

    owner = new_account(stub, "cut")
    holder: list[DialInBot] = []
    plan = {"cut_on": 10**9, "seen": 0}

    def act(observation: dict, options: list) -> str:
        plan["seen"] += 1
        if plan["seen"] == plan["cut_on"]:
            holder[0].drop()
            time.sleep(0.2)
        return options[-1].id

    holder.append(dial(server, owner.token, "cutter", act=act))
    bot = Running(holder[0])
    running.append(bot)
    assert bot.bot.welcomed.wait(20), bot.error
    bot_id = bot.bot.welcome.bot.bot.id
    wait_for(lambda: stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=bot_id)).status
             == pb.VERSION_STATUS_ACTIVE, what="the qualification")
    source = dialin_client.source(owner.name, "toy", "cutter")
    plan["cut_on"] = plan["seen"] + 3  # its third decision of the next match
    rnd = "sample_bots/random_bot"

    def play(seed: int):  # noqa: ANN202
        return run_match(MatchConfig(game="toy", seats=[SeatSpec("cutter", source), SeatSpec("rnd", rnd)],
                                     seed=seed, time_control=FAST_TC, sandbox=False))

    cut_match = play(1)
    assert [(f.seat, f.reason) for f in cut_match.forfeits] == [(0, "disconnected")]
    forfeit = cut_match.forfeits[0]
    assert forfeit.message.startswith(dialin_client.DROPPED)
    assert forfeit.decision >= 2  # mid-match: it had played decisions before the cut
    wait_for(lambda: bot.bot.connections >= 2, what="the reconnection after the cut")
    plan["cut_on"] = 10**9
    next_match = play(2)
    assert next_match.forfeits == []
    assert any(d.seat == 0 and not d.forced for d in next_match.decisions)


def test_not_connected_is_unreachable_and_the_relay_wants_its_key(server, stub) -> None:  # noqa: ANN001
    source = dialin_client.source("nobody", "toy", "ghost")
    client = BotClient(source, None)
    start = bot_pb2.MatchStart(protocol_version=1, match_id="m", game="toy", seat=0, players=2)
    t0 = time.monotonic()
    try:
        with pytest.raises(BotFault) as info:
            client.start_match(start, timeout_s=1.0)
    finally:
        client.close()
    assert info.value.code == "unreachable"
    assert time.monotonic() - t0 < 5
    # Without the relay key nobody can drive a connected bot through the server.
    channel = grpc.insecure_channel(server.address)
    try:
        call = channel.unary_unary("/tabletop.bot.v1.Bot/Act")
        with pytest.raises(grpc.RpcError) as err:
            call(b"", timeout=5, metadata=((dialin_client.SOURCE_HEADER, source),))
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        channel.close()


def test_wrong_token_and_unknown_game_are_refusals_not_retries(server, stub) -> None:  # noqa: ANN001
    bot = DialInBot(first_option, server.address, "arena_not-a-token", "nobody-bot", "toy")
    with pytest.raises(ConnectError, match="UNAUTHENTICATED"):
        bot.run()
    owner = new_account(stub, "dial")
    bot = DialInBot(first_option, server.address, owner.token, "some-bot", "no-such-game")
    with pytest.raises(ConnectError, match="INVALID_ARGUMENT"):
        bot.run()
    other = new_account(stub, "dial")
    taken = Running(DialInBot(first_option, server.address, owner.token, "mine", "toy"))
    try:
        assert taken.bot.welcomed.wait(20)
        thief = DialInBot(first_option, server.address, other.token, "mine", "toy")
        with pytest.raises(ConnectError, match="PERMISSION_DENIED"):
            thief.run()
    finally:
        taken.stop()


def test_the_ladder_seats_a_dial_in_bot_only_while_it_is_connected(server, stub) -> None:  # noqa: ANN001
    # Two authors: bots of one author never meet at a rated table (one author, one seat).
    owners = [new_account(stub, prefix) for prefix in ("presa", "presb")]
    bots = [Running(dial(server, owners[i].token, f"pres-{i}", game="solenia")) for i in range(2)]
    try:
        for r in bots:
            assert r.bot.welcomed.wait(20), r.error
        sources = [dialin_client.source(owners[i].name, "solenia", f"pres-{i}") for i in range(2)]
        assert dialin.connected_among(sources) == set(sources)
        ids = [r.bot.welcome.bot.bot.id for r in bots]
        wait_for(lambda: all(stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=i)).status
                             == pb.VERSION_STATUS_ACTIVE for i in ids), what="both qualifications")
        assert seated_by_a_tick() == set(sources)  # connected: the ladder takes them
    finally:
        for r in bots:
            r.stop()
    wait_for(lambda: not dialin.connected_among(sources), timeout=10, what="the disconnections")
    assert seated_by_a_tick() == set()


def seated_by_a_tick() -> set[str]:
    """The sources one ladder tick of solenia would seat (rolled back: nothing is played)."""
    from arena.competition import ladder
    from arena.db import session_scope

    with session_scope() as s:
        ladder.ensure_ladder(s, "solenia", queue_target=1)
        created = ladder.tick(s, "solenia")
        seated = {seat.version.source for mid in created for seat in s.get(ladder.Match, mid).seats}
        s.rollback()
    return seated


def test_arena_connect_dials_in_only_once_the_local_bot_listens(server, stub) -> None:  # noqa: ANN001
    """``arena connect`` (ForwardingDialInBot): no connection, hence no qualification match
    that would find the local bot still starting, before the local bot answers."""
    from arena.sdk import make_server
    from arena.sdk.connect import ForwardingDialInBot
    from tests.api.processes import free_port

    owner = new_account(stub, "fwd")
    port = free_port()
    local = grpc.insecure_channel(f"127.0.0.1:{port}")
    bot = ForwardingDialInBot(local, server.address, owner.token, "fwd-bot", "toy", backoff_s=0.05)
    runner = Running(bot)
    local_bot = None
    try:
        assert not bot.welcomed.wait(1.5)  # the local bot is not there yet
        local_bot, _ = make_server(first_option, f"127.0.0.1:{port}", name="local")
        local_bot.start()
        assert bot.welcomed.wait(30), runner.error
    finally:
        runner.stop()
        if local_bot is not None:
            local_bot.stop(0)
        local.close()
