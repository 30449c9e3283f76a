"""The referee's side of one seat's bot: launch or dial it, call it with deadlines, classify faults.

Every way a bot can misbehave ends up as a :class:`BotFault` with a reason code from
:data:`REASONS`, so the match runner has exactly one thing to handle. The hot path (``act``) is
kept lean: one channel per bot for the whole match, the request serialised once, the reply
parsed by us (so that undecodable bytes are recognised as a garbage reply rather than a generic
transport error).
"""

from __future__ import annotations

import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import grpc

from referee import dialin_client
from referee._proto import bot_pb2
from referee.fair_clock import RunQueueWaits, WaitMark, own_time_ms
from referee.faults import REASONS, SERVER_ERROR  # noqa: F401 - REASONS re-exported: the codes live there
from referee.manifest import has_entry
from referee.protocol import BOT_ERROR_STATUS, bot_error_message, version_mismatch
from referee.relay_stream import (
    ACT,
    END_MATCH,
    START_MATCH,
    RelayBotError,
    RelayStream,
    RelayTimeout,
)
from referee.sandbox import BotProcess, SandboxError, SandboxLimits
from referee.tls import BOT_CA_ENV, TLS_SCHEME, TlsError, channel_credentials

_SERVICE = "/tabletop.bot.v1.Bot/"
#: Threads that make the calls a match sends every seat at once (StartMatch, EndMatch), kept
#: for the process's life: a grpc future starts a thread of its own per call, and a fresh
#: executor per match starts one per seat — ~1.5 ms a call on a worker. Threads are made as
#: needed, up to enough for several matches of five seats in one process (``arena tournament
#: --workers W`` plays W at once); past that a call waits for a free thread, and its start-up
#: clock starts only when it is made, so no seat is charged for the wait.
SEAT_CALLS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="seat-call")
#: Matched with ``fullmatch``: ``$`` would also match before a final newline.
_HOST_PORT = re.compile(r"(?P<host>[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\]):(?P<port>\d{1,5})")
_CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", 1 << 20),  # a reply is an id and a comment
    ("grpc.max_send_message_length", 16 << 20),
    ("grpc.enable_retries", 0),
    # A hosted bot's socket appears some 100 ms after launch; the default 1 s reconnect backoff
    # would make every start-up wait a whole second for nothing.
    ("grpc.initial_reconnect_backoff_ms", 10),
    ("grpc.min_reconnect_backoff_ms", 10),
    ("grpc.max_reconnect_backoff_ms", 250),
    # No BDP probing (a PING after received data, to size the flow-control window for bulk
    # transfers: nothing to gain for messages of a few KB). A hosted bot is frozen between its
    # turns (docs/referee.md, "Bots do not ponder"), so a probe sent after its reply waits
    # unanswered while another seat thinks, and an unanswered ping ends the connection at its
    # timeout: the next call would have to connect again. Keepalive pings stay off (grpc's
    # client default), for the same reason.
    ("grpc.http2.bdp_probe", 0),
]


#: The relay stream carries one seat's whole match: BDP probing (a PING after received data,
#: to size the flow-control window for bulk transfers) costs CPU on every decision there and
#: gains nothing for messages of a few KB.
RELAY_CHANNEL_OPTIONS = [("grpc.http2.bdp_probe", 0)]


def dial(address: str, extra: list[tuple[str, object]] | None = None) -> grpc.Channel:
    """The channel to a bot: ``tls://host:port`` over TLS, anything else (``unix:``, host:port)
    in plaintext.

    A TLS bot's certificate must name its host and be signed by a CA the referee trusts: the
    one in ``ARENA_BOT_TLS_CA`` (a PEM file) when set, else the system's roots. A missing or
    wrong CA file makes the seat unreachable with a message that says so.
    """
    options = _CHANNEL_OPTIONS + (extra or [])
    if not address.startswith(TLS_SCHEME):
        return grpc.insecure_channel(address, options=options)
    ca = os.environ.get(BOT_CA_ENV, "").strip() or None
    try:
        credentials = channel_credentials(ca)
    except TlsError as exc:
        raise BotFault("unreachable", f"cannot dial {address}: {exc} (set by {BOT_CA_ENV})") from None
    return grpc.secure_channel(address.removeprefix(TLS_SCHEME), credentials, options=options)


#: Hard caps on a hosted bot's time limits, in wall time, as multiples of the limit: a bot kept
#: waiting for a CPU by a busy host is waited for while its own time
#: (:func:`referee.fair_clock.own_time_ms`) is under the limit, but never past the cap. The
#: start budget (StartMatch); the whole start-up, launch included; one decision (the call's
#: gRPC deadline on a busy host: referee.match).
START_CAP_FACTOR = 4.0
STARTUP_CAP_FACTOR = 2.0
DECISION_CAP_FACTOR = 2.5
#: While a start is over its limit in wall time, its own time is looked at this often.
START_JUDGE_EVERY_S = 0.1


class BotFault(Exception):
    """A seat's bot misbehaved. ``code`` is a key of :data:`REASONS` — or
    :data:`~referee.faults.SERVER_ERROR` when the fault was the host's, not the bot's (the
    runner then voids the match: ``referee.match.HostOverloaded``)."""

    def __init__(self, code: str, message: str, log_tail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.log_tail = log_tail


@dataclass(frozen=True)
class BotSource:
    """Where a seat's bot comes from: a hosted folder, or a remote ``host:port`` (plaintext),
    ``tls://host:port`` (TLS, see :func:`dial`) or ``dialin://OWNER/GAME/NAME`` (a bot that dialled
    in to the Arena server, reached through its relay: see :mod:`referee.dialin_client`)."""

    kind: str  # "hosted" | "remote"
    location: str

    @staticmethod
    def parse(text: str) -> BotSource:
        """Read a ``--bot`` value. Raises ``ValueError`` with a message for the user."""
        if text.startswith(dialin_client.SCHEME):
            if not dialin_client.is_source(text):
                raise ValueError(f"dial-in bot {text[:80]!r} is not dialin://OWNER/GAME/NAME")
            return BotSource("remote", text)
        path = Path(text).expanduser()
        if path.is_dir():
            if not has_entry(path):
                raise ValueError(f"bot folder {text[:80]!r} has no bot.py (nor a bot.json manifest)")
            return BotSource("hosted", str(path.resolve()))
        if path.suffix == ".py" and path.is_file():
            raise ValueError(f"give the bot's folder, not the file: {str(path.parent)!r}")
        m = _HOST_PORT.fullmatch(text.removeprefix(TLS_SCHEME))
        if m:
            port = int(m.group("port"))
            if not 0 < port < 65536:
                raise ValueError(f"bot address {text[:80]!r}: port must be 1-65535")
            return BotSource("remote", text)
        if ":" in text or not path.exists():
            raise ValueError(
                f"bot {text[:80]!r} is neither a folder with bot.py nor a host:port (or tls://host:port) address"
            )
        raise ValueError(f"bot {text[:80]!r} is not a folder")


class BotClient:
    """One seat's connection: a channel, the three calls, and the process if it is hosted."""

    def __init__(self, address: str | None, process: BotProcess | None) -> None:
        self.address = address
        self.process = process
        #: Call metadata: None, except for a dial-in bot (which bot, and the relay key).
        self.metadata: tuple[tuple[str, str], ...] | None = None
        self.dialin = False
        #: A dial-in bot's calls go down this one stream to the relay (opened at StartMatch).
        self.relay: RelayStream | None = None
        self.channel: grpc.Channel | None = None
        if address is not None:
            self._open_channel(address)
        self.ready_ms: float | None = None
        #: It has answered a StartMatch on this channel (a pooled bot seated again).
        self.warm = False
        #: How long the bot took to answer StartMatch (its own start-up work), against
        #: the start budget.
        self.start_ms: float | None = None
        #: Where this match's start-up is timed from: the launch, or the moment a pooled bot
        #: was taken for the match.
        self.started_at: float | None = process.started_at if process is not None else None
        #: Run-queue waits of the hosted bot's threads (made on first use; see fair_clock).
        self._waits: RunQueueWaits | None = None

    def _open_channel(self, address: str) -> None:
        """Dial ``address``; a ``dialin://`` bot is reached through the Arena server's relay
        (one :class:`RelayStream` per seat), with metadata naming the bot and carrying the
        relay key."""
        self.address = address
        self.dialin = address.startswith(dialin_client.SCHEME)
        if self.dialin:
            relay = dialin_client.relay_address()
            if relay is None:
                raise BotFault("unreachable", f"{address}: no dial-in relay is configured here "
                               f"(set {dialin_client.RELAY_ENV} to the Arena server's host:port)")
            self.metadata = ((dialin_client.SOURCE_HEADER, address), (dialin_client.KEY_HEADER, dialin_client.relay_key()))
            self.channel = dial(relay, RELAY_CHANNEL_OPTIONS)
        else:
            self.channel = dial(address)
        # Raw-bytes callables: we parse replies ourselves (see module docstring).
        self._start = self.channel.unary_unary(_SERVICE + "StartMatch")
        self._act = self.channel.unary_unary(_SERVICE + "Act")
        self._end = self.channel.unary_unary(_SERVICE + "EndMatch")

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def launch(
        cls, source: BotSource, sandbox: bool, limits: SandboxLimits | None = None
    ) -> BotClient:
        """Start a hosted bot (or prepare to dial a remote one). Does not wait for it."""
        if source.kind == "remote":
            return cls(source.location, None)
        try:
            process = BotProcess(Path(source.location), sandbox=sandbox, limits=limits)
        except SandboxError as exc:
            raise BotFault("start_failed", str(exc)) from exc
        return cls(None, process)  # dialled once its socket exists (start_match)

    # --- start -------------------------------------------------------------------------------
    def _wait_for_socket(self, limit_at: float, hard_at: float) -> None:
        """A hosted bot is dialled once its socket exists: until then, watch the process.
        Past ``limit_at`` its own time is judged (:meth:`_judge_start_deadline`), up to
        ``hard_at``."""
        proc = self.process
        look = limit_at
        while True:
            try:
                address = proc.dial_address()
            except SandboxError as exc:
                raise BotFault("start_failed", str(exc), self.log_tail()) from None
            if address is not None:
                self._open_channel(address)
                return
            if proc.exit_status() is not None:
                if proc.output.flooded:  # killed for its output, not a failed start
                    raise self._flood_fault()
                raise BotFault("start_failed", f"the bot {proc.describe_exit()} before it was ready",
                               self.log_tail())
            now = time.perf_counter()
            if now > look:
                self._judge_start_deadline("the bot made no socket before the start-up deadline",
                                           limit_at, final=now >= hard_at)
                look = now + START_JUDGE_EVERY_S
            time.sleep(0.003)

    def start_match(
        self, request: bot_pb2.MatchStart, timeout_s: float, budget_s: float | None = None
    ) -> bot_pb2.Ready:
        """Wait until the bot answers StartMatch, watching its process so a bot that dies at
        start is reported at once rather than at the deadline.

        ``timeout_s`` bounds the whole start-up (launch included); ``budget_s`` bounds the bot's
        own StartMatch work, timed from its socket being there (:attr:`start_ms`). For a hosted
        bot both are judged on its own time, not the wall (:mod:`referee.fair_clock`): a bot
        kept waiting for a CPU by a busy host is waited for until its own time reaches the limit
        (then ``start_timeout``, as on a quiet host), but no longer than a hard cap of
        :data:`STARTUP_CAP_FACTOR` times the start-up deadline and :data:`START_CAP_FACTOR`
        times the budget; at a cap with less of its own time than the limit, the fault is the
        host's: ``server_error``."""
        t0 = time.perf_counter()
        started = self.started_at if self.started_at is not None else t0
        limit_at = t0 + timeout_s
        hosted = self.process is not None
        hard_at = t0 + timeout_s * STARTUP_CAP_FACTOR if hosted else limit_at
        if self.channel is None:
            self._wait_for_socket(limit_at, hard_at)
        t_call = time.perf_counter()
        call_s = max(0.001, hard_at - t_call)
        budget = None
        if budget_s is not None and budget_s < max(0.001, limit_at - t_call):
            budget = _StartBudget(self, t_call, budget_s)
            call_s = min(call_s, budget_s * START_CAP_FACTOR) if budget.fair else budget_s
        try:
            ready = self._call_start(request, call_s, deadline=t_call + call_s, budget=budget)
        except BotFault as fault:
            if fault.code != "start_timeout" or not hosted:
                raise
            self.start_ms = (time.perf_counter() - t_call) * 1000.0
            if budget is not None:
                raise (fault if fault is budget.raised else budget.fault(fault.log_tail, final=True)) from None
            self._judge_start_deadline(fault.message, limit_at, final=True)
            raise
        self.start_ms = (time.perf_counter() - t_call) * 1000.0
        self.ready_ms = (time.perf_counter() - started) * 1000.0
        self.warm = True
        if self.process is not None:
            self.process.lock_socket_dir()
        return ready

    def _judge_start_deadline(self, message: str, limit_at: float, final: bool) -> None:
        """Past the start-up deadline (``limit_at``): raise ``start_timeout`` once the bot's own
        time since its launch reaches the deadline's length; at the hard cap (``final``) with
        less than that, ``server_error`` — the host kept it waiting for a CPU. Returns when
        the bot may be waited for a while longer."""
        proc = self.process
        if proc is None or proc.started_at is None:
            raise BotFault("start_timeout", message, self.log_tail())
        now = time.perf_counter()
        limit_ms = (limit_at - proc.started_at) * 1000.0
        wall = (now - proc.started_at) * 1000.0
        own = own_time_ms(wall, self.cpu_ms(), self.waited_ms(None))
        if own >= limit_ms:
            raise BotFault("start_timeout", f"{message} (its own time: {own:.0f} ms of {wall:.0f} ms)",
                           self.log_tail())
        if final:
            raise BotFault(SERVER_ERROR, f"{message}, but the host kept the bot waiting for a CPU: "
                           f"its own time was {own:.0f} ms of {wall:.0f} ms", self.log_tail())

    def _call_start(self, request: bot_pb2.MatchStart, timeout_s: float, deadline: float,
                    budget: _StartBudget | None = None) -> bot_pb2.Ready:
        raw = (self._relay_start(request, timeout_s) if self.dialin
               else self._unary_start(request, timeout_s, deadline, budget))
        try:
            ready = bot_pb2.Ready.FromString(raw)
        except Exception:
            raise BotFault("start_failed", "StartMatch reply could not be decoded") from None
        if ready.protocol_version != request.protocol_version:
            raise BotFault("start_failed", "the bot's Ready: " + version_mismatch(ready.protocol_version))
        return ready

    def _relay_start(self, request: bot_pb2.MatchStart, timeout_s: float) -> bytes:
        """StartMatch of a dial-in bot, on a fresh relay stream (which it binds to the bot's
        connection of this moment); faults as for a unary call to a remote bot."""
        if self.relay is not None:
            self.relay.close()
        self.relay = RelayStream(self.channel, self.metadata)
        try:
            return self.relay.invoke(START_MATCH, request.SerializeToString(), timeout_s)
        except RelayTimeout:
            raise BotFault("unreachable", f"no answer to StartMatch within {timeout_s:.1f} s from {self.address}") from None
        except RelayBotError as exc:
            raise BotFault("start_failed", "StartMatch failed: " + bot_error_message(BOT_ERROR_STATUS, str(exc))) from None
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNAVAILABLE:
                raise BotFault(self._dialin_reason(exc), f"{exc.details()}") from None
            raise BotFault("start_failed", "StartMatch failed: " + bot_error_message(exc.code().name, exc.details() or "")) from None

    def _unary_start(self, request: bot_pb2.MatchStart, timeout_s: float, deadline: float,
                     budget: _StartBudget | None = None) -> bytes:
        payload = request.SerializeToString()
        if self.warm:
            # A pooled bot that answered a StartMatch before: its process was checked when it was
            # taken, and one that has died since fails this call at once (UNAVAILABLE), so a
            # plain call does — without the future's thread and the watching loop (~1.5 ms).
            # Its budget is judged when the call returns (a known-good bot: at worst it holds
            # the call to the cap).
            try:
                raw = self._start(payload, timeout=timeout_s, metadata=self.metadata)
            except grpc.RpcError as exc:
                raise self._start_fault(exc, timeout_s) from None
            if budget is not None and budget.late():
                raise budget.fault(self.log_tail())
            return raw
        future = self._start.future(payload, timeout=timeout_s, wait_for_ready=True, metadata=self.metadata)
        # Woken the moment the answer is there (sleeping between looks cost ~5 ms a seat); the
        # process is looked at meanwhile, so a bot that dies at start is reported at once.
        answered = threading.Event()
        future.add_done_callback(lambda _: answered.set())
        while not answered.wait(0.005):
            if self.process is not None and self.process.exit_status() is not None:
                future.cancel()
                if self.process.output.flooded:  # killed for its output, not a failed start
                    raise self._flood_fault()
                raise BotFault(
                    "start_failed",
                    f"the bot {self.process.describe_exit()} before it was ready",
                    self.log_tail(),
                )
            # A remote bot's budget is the call's deadline (its own time cannot be measured):
            # a bot that never connected is then ``unreachable``, not slow.
            if budget is not None and budget.fair and budget.spent():
                future.cancel()
                raise budget.fault(self.log_tail())
            if time.perf_counter() > deadline + 0.5:
                future.cancel()
                break
        try:
            raw = future.result(timeout=0)
        except grpc.FutureCancelledError:
            raw = None
        except grpc.RpcError as exc:
            raise self._start_fault(exc, timeout_s) from None
        if raw is None:
            raise BotFault(
                "start_timeout" if self.process else "unreachable",
                f"no answer to StartMatch within {timeout_s:.1f} s",
                self.log_tail(),
            )
        if budget is not None and budget.late():
            raise budget.fault(self.log_tail())
        return raw

    def _start_fault(self, exc: grpc.RpcError, timeout_s: float) -> BotFault:
        code = exc.code()
        if self.process is not None and self.process.output.flooded:
            return self._flood_fault()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return BotFault(
                "start_timeout" if self.process else "unreachable",
                f"no answer to StartMatch within {timeout_s:.1f} s" + ("" if self.process else f" from {self.address}"),
                self.log_tail(),
            )
        self._check_process()
        return BotFault("start_failed", "StartMatch failed: " + bot_error_message(code.name, exc.details() or ""),
                        self.log_tail())

    # --- the hot path ------------------------------------------------------------------------
    def act(self, request_bytes: bytes, timeout_s: float) -> bot_pb2.ActReply:
        """One decision. Raises :class:`BotFault` for every way the call can go wrong."""
        if self.dialin:
            raw = self._relayed(ACT, request_bytes, timeout_s)
        else:
            try:
                raw = self._act(request_bytes, timeout=timeout_s, metadata=self.metadata)
            except grpc.RpcError as exc:
                raise self._classify(exc, timeout_s) from None
        try:
            return bot_pb2.ActReply.FromString(raw)
        except Exception:
            shown = raw[:40]
            raise BotFault(
                "garbage_reply", f"the reply is not an ActReply message ({len(raw)} bytes: {shown!r})"
            ) from None

    def _relayed(self, method: int, request_bytes: bytes, timeout_s: float) -> bytes:
        """A call to a dial-in bot on its relay stream, with the faults of a unary call."""
        if self.relay is None:  # no StartMatch on this client: the bot's current connection
            self.relay = RelayStream(self.channel, self.metadata)
        try:
            return self.relay.invoke(method, request_bytes, timeout_s)
        except RelayTimeout:
            raise BotFault("timeout", f"no answer within {timeout_s * 1000:.0f} ms") from None
        except RelayBotError as exc:
            raise BotFault("bot_error", bot_error_message(BOT_ERROR_STATUS, str(exc))) from None
        except grpc.RpcError as exc:
            raise self._classify(exc, timeout_s) from None

    def _classify(self, exc: grpc.RpcError, timeout_s: float) -> BotFault:
        code = exc.code()
        if self.process is not None and self.process.output.flooded:
            return self._flood_fault()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return BotFault("timeout", f"no answer within {timeout_s * 1000:.0f} ms")
        # A connection that drops is most often a process dying: give the kernel time to finish the
        # kill (an OOM kill of a large sandbox on a busy host takes longer than 0.3 s to reap),
        # so the forfeit names the cause (memory, a signal) rather than "connection lost".
        fault = self._check_process(wait_s=2.0 if code == grpc.StatusCode.UNAVAILABLE else 0.05)
        if fault is not None:
            return fault
        if code == grpc.StatusCode.UNAVAILABLE and self.dialin:
            return BotFault(self._dialin_reason(exc), exc.details() or "connection lost")
        if code == grpc.StatusCode.UNAVAILABLE:
            kind = "unreachable" if self.process is None else "crash"
            return BotFault(kind, f"connection lost: {exc.details()}", self.log_tail())
        if code == grpc.StatusCode.INTERNAL and "eserializ" in (exc.details() or ""):
            return BotFault("garbage_reply", f"the reply could not be decoded: {exc.details()}")
        return BotFault("bot_error", bot_error_message(code.name, exc.details() or ""), self.log_tail())

    @staticmethod
    def _dialin_reason(exc: grpc.RpcError) -> str:
        """A relayed call that failed for want of the bot's connection: ``disconnected`` when
        the connection dropped, ``unreachable`` when the bot (or the relay) was never there."""
        return "disconnected" if (exc.details() or "").startswith(dialin_client.DROPPED) else "unreachable"

    def _check_process(self, wait_s: float = 0.0) -> BotFault | None:
        """If the hosted process has died (or is dying), the fault that says so."""
        proc = self.process
        if proc is None:
            return None
        end = time.perf_counter() + wait_s
        while proc.exit_status() is None and time.perf_counter() < end:
            time.sleep(0.005)
        if proc.output.flooded:
            return self._flood_fault()
        if proc.exit_status() is None:
            return None
        return BotFault("crash", f"the bot {proc.describe_exit()}", self.log_tail())

    def _flood_fault(self) -> BotFault:
        limit = self.process.limits.output_bytes if self.process else 0
        return BotFault(
            "output_flood", f"the bot wrote more than {limit} bytes of output", self.log_tail()
        )

    def check_health(self) -> BotFault | None:
        """An output flood noticed between calls, or None. Deliberately only a flag read: it runs
        on every decision, and a dead process shows itself at the next call anyway."""
        if self.process is not None and self.process.output.flooded:
            return self._flood_fault()
        return None

    def cpu_ms(self) -> float | None:
        return self.process.cpu_ms() if self.process is not None else None

    def mark_waits(self) -> WaitMark | None:
        """Where a window starts for :meth:`waited_ms` (None: not measurable, a remote bot)."""
        if self.process is None or self.process.exit_status() is not None:
            return None
        if self._waits is None:
            self._waits = RunQueueWaits(self.process.proc.pid)
        try:
            return self._waits.mark()
        except OSError:
            return None

    def waited_ms(self, since: WaitMark | None) -> float | None:
        """How long the hosted bot's threads waited for a CPU since ``since`` (a
        :meth:`mark_waits`; None: since each was born); None for a remote bot."""
        if self.process is None:
            return None
        if self._waits is None:
            self._waits = RunQueueWaits(self.process.proc.pid)
        try:
            return self._waits.waited_ms(since)
        except OSError:
            return None

    def log_tail(self) -> str:
        if self.process is None:
            return ""
        self.process.output.join(0.05)
        return self.process.output.text()

    def reset_for_match(self) -> None:
        """A pooled bot is seated again: per-match state starts afresh (output quota, log tail,
        start-up timing). The bank and CPU baseline live in the runner's seat, also per match."""
        self.ready_ms = None
        self.start_ms = None
        self.started_at = time.perf_counter()
        if self.process is not None:
            self.process.output.start_new_match()

    # --- the end -----------------------------------------------------------------------------
    def end_match_future(self, request: bot_pb2.MatchEnd, timeout_s: float):
        """Tell the bot the match is over, without waiting (the caller gathers the futures'
        ``result()``: the Ack, or the call's error)."""
        if self.dialin:
            if self.relay is None:
                self.relay = RelayStream(self.channel, self.metadata)
            return _RelayedEnd(self.relay, self.relay.send(END_MATCH, request.SerializeToString(), timeout_s))
        return SEAT_CALLS.submit(self._end, request.SerializeToString(), timeout=timeout_s, metadata=self.metadata)

    def close(self) -> None:
        """Close the channel and kill the sandbox. Idempotent; called on every path."""
        try:
            if self.relay is not None:
                self.relay.close()
            if self.channel is not None:
                self.channel.close()
        finally:
            if self._waits is not None:
                self._waits.close()
            if self.process is not None:
                self.process.stop()


class _StartBudget:
    """The start budget of one StartMatch call, judged on the bot's own time.

    ``fair``: the bot's CPU and waits can be measured (a hosted bot), so the call may stay open
    past the budget while the host, not the bot, is what is slow."""

    def __init__(self, client: BotClient, t_call: float, budget_s: float) -> None:
        self.client = client
        self.t_call = t_call
        self.budget_ms = budget_s * 1000.0
        self.cpu0 = client.cpu_ms()
        self.mark = client.mark_waits()
        self.fair = self.cpu0 is not None and self.mark is not None
        self.next_look = t_call + budget_s
        self.own_ms = 0.0
        self.wall_ms = 0.0
        #: The fault :meth:`fault` made last (the caller does not judge it twice).
        self.raised: BotFault | None = None

    def measure(self) -> float:
        """The bot's own time since the call (ms), also kept in :attr:`own_ms`."""
        self.wall_ms = (time.perf_counter() - self.t_call) * 1000.0
        cpu = self.client.cpu_ms()
        used = None if cpu is None or self.cpu0 is None else cpu - self.cpu0
        waited = self.client.waited_ms(self.mark) if self.fair else None
        self.own_ms = own_time_ms(self.wall_ms, used, waited)
        return self.own_ms

    def spent(self) -> bool:
        """Past the budget in wall time, looked at every START_JUDGE_EVERY_S: is the bot's own
        time past it too?"""
        now = time.perf_counter()
        if now < self.next_look:
            return False
        self.next_look = now + START_JUDGE_EVERY_S
        return self.measure() >= self.budget_ms

    def late(self) -> bool:
        """The answer came after the budget in wall time: was the bot's own time past it?"""
        if (time.perf_counter() - self.t_call) * 1000.0 < self.budget_ms:
            return False
        return self.measure() >= self.budget_ms

    def fault(self, log_tail: str, final: bool = False) -> BotFault:
        """``start_timeout`` when the bot's own time reached the budget; at the cap (``final``)
        with less than that, the host kept it waiting: ``server_error``."""
        if final:
            self.measure()
        if not final or not self.fair or self.own_ms >= self.budget_ms:
            self.raised = BotFault(
                "start_timeout", f"StartMatch took over the start budget of {self.budget_ms:.0f} ms "
                f"(its own time: {self.own_ms or self.wall_ms:.0f} ms of {self.wall_ms:.0f} ms)", log_tail)
        else:
            self.raised = BotFault(
                SERVER_ERROR, f"StartMatch was not answered in {self.wall_ms:.0f} ms, but the host kept "
                f"the bot waiting for a CPU: its own time was {self.own_ms:.0f} ms of the "
                f"{self.budget_ms:.0f} ms budget", log_tail)
        return self.raised


class _RelayedEnd:
    """EndMatch sent on a relay stream; :meth:`result` waits for the bot's Ack."""

    def __init__(self, stream: RelayStream, call_id: int) -> None:
        self._stream, self._call_id = stream, call_id

    def result(self) -> bytes:
        return self._stream.receive(self._call_id)
