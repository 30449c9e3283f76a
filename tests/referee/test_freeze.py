"""Bots do not ponder (issue 35): a hosted bot's sandbox is frozen while it is not on turn.

With real sandboxes, in both ways of freezing a root referee has: the cgroup-v1 ``freezer``
group, and the SIGSTOP walk through the sandbox's own /proc that an unprivileged referee uses
(forced here by hiding the freezer group). The unprivileged referee itself is tested in
test_unprivileged_referee.py, the match against ``spinner`` in test_hostile_bots.py."""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

import grpc
import pytest

from referee import off_turn, sandbox
from referee._proto import bot_pb2
from referee.bot_client import BotClient, BotFault, BotSource
from referee.bot_pool import BotPool
from referee.match import MatchConfig, SeatSpec, run_match
from referee.protocol import PROTOCOL_VERSION
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap
from tests.referee.starve import COUNTER

pytestmark = needs_bwrap


@pytest.fixture(params=["freezer", "walk"])
def how(request, monkeypatch) -> str:
    """Each test runs with the freezer group (as root) and with the SIGSTOP walk."""
    if request.param == "walk" or sandbox.os.geteuid() != 0:
        monkeypatch.setattr(sandbox.SandboxCgroups, "can_freeze", property(lambda self: False))
        return "walk"
    if not (sandbox.SandboxCgroups.BASE / "freezer" / "cgroup.procs").exists():
        pytest.skip("no cgroup-v1 freezer here")
    return request.param


def _started(bot: str) -> BotClient:
    client = BotClient.launch(BotSource("hosted", bot), sandbox=True)
    client.start_match(bot_pb2.MatchStart(protocol_version=PROTOCOL_VERSION, match_id="f",
                                          game="toy", players=2), 10.0)
    return client


def _act(client: BotClient) -> bot_pb2.ActReply:
    request = bot_pb2.ActRequest(match_id="f", observation_json="{}",
                                 options=[bot_pb2.Option(id="a", label="a")], time_left_ms=5000)
    return client.act(request.SerializeToString(), 5.0)


def _cpu_over(client: BotClient, seconds: float) -> float:
    before = client.cpu_ms()
    time.sleep(seconds)
    return client.cpu_ms() - before


def test_a_frozen_spinner_uses_no_cpu_and_runs_again_once_thawed(how: str) -> None:
    """The spinner forks without end and its processes send SIGCONT to each other: frozen, its
    sandbox uses no CPU at all (every process stopped, the forker's newest child too); thawed,
    it spins again and answers."""
    client = _started(str(HOSTILE / "spinner"))
    try:
        assert _cpu_over(client, 0.3) > 30  # it does spin (on a shared machine, in its share)
        for _ in range(3):
            assert client.process.freeze()
            assert _cpu_over(client, 0.5) <= (20 if how == "walk" else 1)  # 10 ms ticks, walk
            if how == "walk":
                states = client.process.view.states()
                # stopped, or a zombie its parent has not waited for yet (nothing left to run)
                assert len(states) >= 8 and all(s in (b"T", b"Z") for pid, s in states.items() if pid != 1), states
            client.process.thaw()
            assert _cpu_over(client, 0.3) > 30
        assert _act(client).comment == "busy=6"
    finally:
        client.close()


def test_a_frozen_bot_is_killed_when_it_cannot_be_stopped_in_time(how: str, monkeypatch) -> None:
    """A freeze that does not settle within its bound kills the sandbox, and its next call says
    why (a crash)."""
    client = _started(str(RANDOM_BOT))
    try:
        with monkeypatch.context() as patch:
            patch.setattr(sandbox, "FREEZE_SETTLE_S", 0.0)
            if how == "freezer":  # the group never reads FROZEN: as if a task could not freeze
                patch.setattr(sandbox.os, "pread", lambda fd, n, off: b"FREEZING\n")
            assert client.process.freeze() is False
        deadline = time.monotonic() + 5  # the kill goes down bwrap's chain of parents
        while client.process.exit_status() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(BotFault) as fault:
            _act(client)
        assert fault.value.code == "crash"
        assert "could not be stopped while it was not on turn" in fault.value.message
    finally:
        client.close()


def test_a_bot_frozen_for_long_keeps_its_connection(how: str, monkeypatch) -> None:
    """A seat may wait minutes for another (a person thinks up to 600 s). Nothing on the
    referee's channel needs the frozen bot meanwhile: no keepalive ping (off on the client, the
    bot's server pings only after two hours idle), no other ping left waiting (the client here
    is set to drop the connection after 1 s of an unanswered ping). The bot answers over the
    same connection right after it is thawed."""
    from referee import bot_client

    monkeypatch.setattr(bot_client, "_CHANNEL_OPTIONS", bot_client._CHANNEL_OPTIONS + [
        ("grpc.http2.ping_timeout_ms", 1000), ("grpc.keepalive_timeout_ms", 1000)])
    client = _started(str(RANDOM_BOT))
    try:
        changes: list[str] = []
        client.channel.subscribe(lambda state: changes.append(state.name))
        for _ in range(5):
            _act(client)
        client.process.freeze()
        time.sleep(8)
        client.process.thaw()
        started = time.perf_counter()
        assert _act(client).option_id == "a"
        assert time.perf_counter() - started < 1.0
        assert changes == ["READY"], changes  # never idle, never reconnected
        assert client.channel._channel.check_connectivity_state(False) == grpc.ChannelConnectivity.READY.value[0]
    finally:
        client.close()


def test_freezing_and_thawing_an_idle_bot_is_cheap(how: str) -> None:
    """What a decision adds to the referee's work: a thaw before the call and a freeze after."""
    client = _started(str(RANDOM_BOT))
    try:
        times = []
        for _ in range(30):
            t0 = time.perf_counter()
            client.process.thaw()
            client.process.freeze()
            times.append((time.perf_counter() - t0) * 1000)
        assert statistics.median(times) < 5.0, sorted(times)
    finally:
        client.close()


def test_seats_are_frozen_outside_their_turns_and_pooled_bots_while_idle(how: str, tmp_path: Path) -> None:
    """During a match only the seat on turn runs: while the counter bot thinks (30 ms a
    decision), the random bot across the table is frozen, as each decision event of the
    counter (sent between turns) shows; the random bot is frozen a moment after its quick
    replies (referee/off_turn.py). After the match the pooled bots wait frozen and are thawed
    when taken."""
    counter = tmp_path / "counter"
    shutil.copytree(COUNTER, counter)
    (counter / "ms.txt").write_text("30")
    pool = BotPool()
    seen: list[tuple[int, list[bool]]] = []
    clients: list[BotClient] = []
    original_take = pool.take

    def take(*args, **kwargs) -> BotClient:
        client = original_take(*args, **kwargs)
        assert not client.process.frozen
        clients.append(client)
        return client

    pool.take = take  # type: ignore[method-assign]

    def on_event(event: dict) -> None:
        if event["type"] == "decision":
            seen.append((event["seat"], [c.process.frozen for c in clients]))

    try:
        for seed in (1, 2):
            clients.clear()
            record = run_match(MatchConfig("toy", [SeatSpec("c", str(counter)), SeatSpec("r", str(RANDOM_BOT))],
                                           seed=seed, pool=pool), on_event=on_event)
            assert record.forfeits == []
        after_counter = [flags for seat, flags in seen if seat == 0]
        assert len(after_counter) >= 8 and all(flags[1] for flags in after_counter), seen
        assert pool.reuses == 2 and pool.idle_count() == 2
        with pool._lock:
            idle = [e.client for e in pool._idle]
        assert all(c.process.frozen for c in idle)
        assert all(_cpu_over(c, 0.2) <= (20 if how == "walk" else 1) for c in idle)
    finally:
        pool.close()


def test_a_seat_asked_again_at_once_is_never_frozen() -> None:
    """The freeze after a reply is put off (referee/off_turn.py): a thaw before it falls due
    cancels it, so quick exchanges pay for no freeze at all; one left alone falls due."""
    client = _started(str(RANDOM_BOT))
    try:
        process = client.process
        for _ in range(20):
            process.freeze_soon()
            process.thaw()
        time.sleep(off_turn.FREEZE_AFTER_S * 5)
        assert not process.frozen
        process.freeze_soon()
        deadline = time.monotonic() + 2
        while not process.frozen and time.monotonic() < deadline:
            time.sleep(0.001)
        assert process.frozen
        process.thaw()
        assert _act(client).option_id == "a"
    finally:
        client.close()


def test_listings_of_the_sandbox_proc_from_several_threads_see_every_process() -> None:
    """The memory watch, a freeze and a thaw list the sandbox's /proc from different threads.
    Listed through the one kept descriptor, whose file offset they shared, one listing saw only
    part of the folder: a thaw missed the bot's process and left it stopped on its turn (the
    unprivileged referee timed out a seat in 2 of 5 matches against the spinner)."""
    import threading

    client = _started(str(RANDOM_BOT))
    try:
        view = client.process.view
        stop = threading.Event()
        missed: list[list[int]] = []

        def other() -> None:
            while not stop.is_set():
                view.processes()

        helper = threading.Thread(target=other)
        helper.start()
        try:
            for _ in range(3000):
                pids = view.pids()
                if 2 not in pids:
                    missed.append(pids)
        finally:
            stop.set()
            helper.join()
        assert missed == []
    finally:
        client.close()
