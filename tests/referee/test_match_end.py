"""The bot protocol's promises about the end of a match and about seats (issue 13, item 4).

* ``MatchEnd`` arrives exactly once per seat, at the real end (after the last decision), with
  the seat, every score and every rank — also for a seat that forfeited, after each fault kind
  whose bot can still hear it (timeout, illegal option, garbage reply, bot error).
* Every per-seat message names its seat: one endpoint serving two seats of one match keeps
  them apart.
* Solo matches carry the ranks as the record gives them (the automaton counts as a finisher).
* The protocol version is checked: a bot whose Ready names none is refused with a clear reason.

The bots are real gRPC servers on real sockets in this process, served by raw handlers so a
test can also answer bytes that are not a message.
"""

from __future__ import annotations

import threading
import time
from concurrent import futures
from dataclasses import dataclass, field

import grpc
import pytest

from referee._proto import bot_pb2
from referee.engine import TimeControl
from referee.faults import REASONS, proto_number
from referee.record import MatchRecord
from tests.referee.helpers import needs_bwrap, play

TC = TimeControl(decision_ms=300, bank_ms=0)


@dataclass
class Log:
    """Everything the bots of one test heard, in arrival order: (call, message) pairs."""

    calls: list[tuple[str, object]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, call: str, msg: object) -> None:
        with self.lock:
            self.calls.append((call, msg))

    def of(self, call: str) -> list:
        with self.lock:
            return [m for c, m in self.calls if c == call]


class RawBot:
    """A bot server whose ``Act`` misbehaves as ``mode`` says on its first decision:
    "ok", "illegal", "timeout", "garbage", "error" or "vanish" (the server stops: a crash)."""

    def __init__(self, log: Log, mode: str = "ok", ready_version: int = bot_pb2.PROTOCOL_VERSION_1) -> None:
        self.log, self.mode, self.ready_version = log, mode, ready_version
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        handlers = {
            "StartMatch": grpc.unary_unary_rpc_method_handler(self.start),
            "Act": grpc.unary_unary_rpc_method_handler(self.act),
            "EndMatch": grpc.unary_unary_rpc_method_handler(self.end),
        }
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("tabletop.bot.v1.Bot", handlers),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.faulted = False

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, raw: bytes, context: grpc.ServicerContext) -> bytes:
        self.log.add("start", bot_pb2.MatchStart.FromString(raw))
        return bot_pb2.Ready(protocol_version=self.ready_version, bot_name=self.mode).SerializeToString()

    def act(self, raw: bytes, context: grpc.ServicerContext) -> bytes:
        req = bot_pb2.ActRequest.FromString(raw)
        self.log.add("act", req)
        if self.mode != "ok" and not self.faulted:
            self.faulted = True
            if self.mode == "illegal":
                return bot_pb2.ActReply(option_id="no-such-option").SerializeToString()
            if self.mode == "timeout":
                time.sleep(TC.decision_ms / 1000 + 0.3)
            elif self.mode == "garbage":
                return b"\xff\xff\xff\xff garbage"
            elif self.mode == "error":
                context.abort(grpc.StatusCode.INTERNAL, "my bot raised")
            elif self.mode == "vanish":
                self.server.stop(0)
                context.abort(grpc.StatusCode.UNAVAILABLE, "going away")
        return bot_pb2.ActReply(option_id=req.options[0].id).SerializeToString()

    def end(self, raw: bytes, context: grpc.ServicerContext) -> bytes:
        self.log.add("end", bot_pb2.MatchEnd.FromString(raw))
        return bot_pb2.Ack().SerializeToString()

    def stop(self) -> None:
        self.server.stop(0)


@pytest.fixture
def bots():
    made: list[RawBot] = []

    def make(log: Log, mode: str = "ok", **kw) -> RawBot:
        bot = RawBot(log, mode, **kw)
        made.append(bot)
        return bot

    yield make
    for bot in made:
        bot.stop()


def assert_ends(record: MatchRecord, ends: list[bot_pb2.MatchEnd], seats: list[int]) -> None:
    """One MatchEnd per seat of ``seats``, each naming its seat and carrying the record's
    scores and ranks, and the seat's fault when it forfeited."""
    assert sorted(e.seat for e in ends) == sorted(seats), ends
    for end in ends:
        assert end.match_id == record.match_id
        assert list(end.scores) == pytest.approx(record.result["scores"])
        assert list(end.ranks) == record.result["ranks"]
        forfeit = record.forfeit_of(end.seat)
        if forfeit is None:
            assert end.fault == bot_pb2.FAULT_REASON_UNSPECIFIED and end.forfeit_reason == ""
        else:
            assert end.fault == proto_number(forfeit.reason)
            assert end.forfeit_reason.startswith(f"{forfeit.reason}: ")
            assert end.fault_decision == forfeit.decision


def test_match_end_once_per_seat_in_a_normal_match(bots) -> None:  # noqa: ANN001
    log = Log()
    a, b = bots(log), bots(log)
    record = play("toy", [a.address, b.address], tc=TC)
    assert record.forfeits == []
    assert_ends(record, log.of("end"), [0, 1])
    # The real end: no decision is asked for after the first MatchEnd.
    calls = [c for c, _ in log.calls]
    assert calls.index("end") > max(i for i, c in enumerate(calls) if c == "act")
    assert sorted(record.result["ranks"]) == sorted(list(log.of("end")[0].ranks))


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("illegal", "illegal_option"), ("timeout", "timeout"), ("garbage", "garbage_reply"), ("error", "bot_error")],
)
def test_a_forfeited_seat_hears_match_end_once_at_the_real_end(bots, mode: str, reason: str) -> None:  # noqa: ANN001
    # black-angel/solenia aside, the toy game is enough: what is checked is the protocol.
    log = Log()
    faulty, fine = bots(log, mode), bots(log)
    record = play("toy", [faulty.address, fine.address], tc=TC)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, reason)]
    assert reason in REASONS
    ends = log.of("end")
    assert_ends(record, ends, [0, 1])
    assert record.result["ranks"][0] == 2  # the forfeited seat ranks last
    # Not mid-match: seat 0's MatchEnd comes after the last decision of the other seat.
    calls = [(c, getattr(m, "seat", None)) for c, m in log.calls]
    last_act = max(i for i, (c, _) in enumerate(calls) if c == "act")
    assert all(i > last_act for i, (c, _) in enumerate(calls) if c == "end")
    # The benched bot was asked nothing after its fault.
    assert len([m for m in log.of("act") if m.seat == 0]) == 1


def test_a_seat_whose_bot_is_gone_cannot_hear_it_and_the_others_still_do(bots) -> None:  # noqa: ANN001
    log = Log()
    gone, fine = bots(log, "vanish"), bots(log)
    record = play("toy", [gone.address, fine.address], tc=TC)
    assert [f.seat for f in record.forfeits] == [0]
    assert record.forfeits[0].reason in ("unreachable", "bot_error")
    assert_ends(record, log.of("end"), [1])
    assert record.result["ranks"] == [2, 1]


@needs_bwrap
def test_after_a_crash_the_other_seat_hears_match_end_once(bots, hostile) -> None:  # noqa: ANN001
    log = Log()
    fine = bots(log)
    record = play("toy", [hostile("crash_mid_match"), fine.address], tc=TimeControl(2000, 2000))
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "crash")]
    assert_ends(record, log.of("end"), [1])
    assert log.of("end")[0].ranks == [2, 1]


def test_one_endpoint_serving_two_seats_keeps_them_apart(bots) -> None:  # noqa: ANN001
    log = Log()
    both = bots(log)
    record = play("toy", [both.address, both.address], tc=TC)
    assert record.forfeits == []
    starts = log.of("start")
    assert sorted(s.seat for s in starts) == [0, 1]
    assert {s.match_id for s in starts} == {record.match_id}
    # Each decision was asked of the seat that was to move, and said so.
    acts = {a.decision: a for a in log.of("act")}
    assert len(acts) == len(record.decisions)
    for d in record.decisions:
        assert acts[d.n].seat == d.seat
        assert acts[d.n].match_id == record.match_id
    assert {a.seat for a in acts.values()} == {0, 1}
    assert_ends(record, log.of("end"), [0, 1])


def test_solo_match_end_carries_the_records_ranks(bots) -> None:  # noqa: ANN001
    # black-angel.ko.txt: the solo game is played against Hal; the automaton counts as a finisher.
    log = Log()
    solo = bots(log)
    record = play("black_angel", [solo.address], seed=3, tc=TimeControl(2000, 5000), variant="solo")
    assert record.forfeits == []
    ends = log.of("end")
    assert_ends(record, ends, [0])
    automaton = record.result["details"].get("automaton_rank")
    assert automaton is not None
    # Not always 1: the seat's rank is the engine's, 2 when Hal beat it.
    assert list(ends[0].ranks) == record.result["engine_ranks"] == [2 if automaton == 1 else 1]
    # issue 13: MatchStart names the version of the game's observation schema (2 since the
    # destroyed Ravagers known in a hand, issue 28).
    assert [s.observation_schema_version for s in log.of("start")] == [2]


def test_a_bot_naming_no_protocol_version_is_refused_with_the_reason(bots) -> None:  # noqa: ANN001
    log = Log()
    old, fine = bots(log, ready_version=bot_pb2.PROTOCOL_VERSION_UNSPECIFIED), bots(log)
    record = play("toy", [old.address, fine.address], tc=TC)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "start_failed")]
    assert "PROTOCOL_VERSION_UNSPECIFIED" in record.forfeits[0].message
    assert all(s.protocol_version == bot_pb2.PROTOCOL_VERSION_1 for s in log.of("start"))
    assert all(s.observation_schema_version == 0 for s in log.of("start"))  # toy: no schema


def test_the_sdk_refuses_a_match_start_without_a_protocol_version() -> None:
    from arena.sdk import make_server

    server, port = make_server(lambda obs, opts: opts[0].id, "127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        start = channel.unary_unary("/tabletop.bot.v1.Bot/StartMatch",
                                    request_serializer=bot_pb2.MatchStart.SerializeToString,
                                    response_deserializer=bot_pb2.Ready.FromString)
        with pytest.raises(grpc.RpcError) as info:
            start(bot_pb2.MatchStart(match_id="m", game="toy"), timeout=5)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "PROTOCOL_VERSION_UNSPECIFIED" in info.value.details()
        ready = start(bot_pb2.MatchStart(protocol_version=bot_pb2.PROTOCOL_VERSION_1, match_id="m"), timeout=5)
        assert ready.protocol_version == bot_pb2.PROTOCOL_VERSION_1
    finally:
        channel.close()
        server.stop(0)
