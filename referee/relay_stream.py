"""The referee's stream to the dial-in relay: one seat's calls as messages on one open stream.

A dial-in bot is reached through the Arena server that holds its ``ConnectBot`` stream
(:mod:`referee.dialin_client`). A unary call per decision to that server cost more than the whole bare
call to a listening bot (the aio server's per-call work, metadata and a new HTTP/2 stream each
time); a message on an open stream costs a fraction of it. So the seat opens one
``tabletop.arena.v1.DialinRelay/Relay`` stream at StartMatch and sends each call as a
``RelayCall``, waiting for its ``RelayAnswer`` before the next.

Deadlines: the relay answers ``RELAY_OUTCOME_TIMEOUT`` when a call's ``deadline_ms`` runs out,
so the referee learns of a timeout from the server, on time. A relay that stops answering at
all (hung, or a network that black-holes packets) is caught by :class:`_Watchdog`, one thread
per process that cancels a stream whose call is :data:`GRACE_S` past its deadline; the caller
then sees :class:`RelayTimeout` as well. The caller reads the stream itself: no reader thread, and
no thread of grpc's either (:mod:`referee.direct_stream`), because every hand-over between threads
costs about as much as the message. With the ``cygrpc_stream`` shortcut off (docs/shortcuts.md)
the stream is grpc's public one, with its threads.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref

import grpc

from referee._proto import arena_pb2 as pb
from referee.direct_stream import open_stream

PATH = "/tabletop.arena.v1.DialinRelay/Relay"
#: How long past a call's deadline the referee waits for the relay's own TIMEOUT answer.
GRACE_S = 0.5
START_MATCH = pb.CONNECT_BOT_METHOD_START_MATCH
ACT = pb.CONNECT_BOT_METHOD_ACT
END_MATCH = pb.CONNECT_BOT_METHOD_END_MATCH


class RelayTimeout(Exception):
    """No answer before the call's deadline (said by the relay, or by the watchdog)."""


class RelayBotError(Exception):
    """The bot answered that it could not answer (its error text)."""


class RelayStream:
    """One seat's open stream to the relay. Not thread-safe: one call at a time (the
    referee's seat is sequential), except that :meth:`send` and :meth:`receive` may be split
    (EndMatch goes to every seat before any answer is awaited). A
    :class:`~referee.direct_stream.DirectStream` (the thread that waits for an answer polls for
    it itself) or, with the shortcut off, a :class:`~referee.direct_stream.PublicStream`."""

    def __init__(self, channel: grpc.Channel, metadata: tuple[tuple[str, str], ...]) -> None:
        self._ids = itertools.count(1)
        #: Monotonic time after which the watchdog cancels the stream (None: no call waiting).
        self.expires: float | None = None
        self.cut_by_watchdog = False
        self._stream = open_stream(channel, PATH, metadata)
        _WATCHDOG.add(self)

    def send(self, method: int, request: bytes, timeout_s: float) -> int:
        """Send one call; returns its id for :meth:`receive`."""
        call_id = next(self._ids)
        self._stream.send(
            pb.RelayCall(
                call_id=call_id,
                method=method,
                request=request,
                deadline_ms=max(1, int(timeout_s * 1000)),
            ).SerializeToString(),
            and_receive=True,
        )
        self.expires = time.monotonic() + timeout_s + GRACE_S
        return call_id

    def receive(self, call_id: int) -> bytes:
        """The reply to call ``call_id``. Raises :class:`RelayTimeout`, :class:`RelayBotError`,
        or ``grpc.RpcError`` when the stream ended (UNAVAILABLE with the relay's reason)."""
        try:
            while True:
                raw = self._stream.receive()
                if raw is None:
                    if self.cut_by_watchdog:
                        raise RelayTimeout("no answer from the dial-in relay in time")
                    if (
                        self._stream.status is not None
                        and self._stream.status[0] == grpc.StatusCode.OK
                    ):
                        raise _Ended()
                    raise self._stream.error()
                answer = pb.RelayAnswer.FromString(raw)
                if answer.call_id == call_id:
                    break
                # The answer to an earlier call whose wait was cut short: not this one.
        finally:
            self.expires = None
        if answer.outcome == pb.RELAY_OUTCOME_REPLY:
            return answer.reply
        if answer.outcome == pb.RELAY_OUTCOME_TIMEOUT:
            raise RelayTimeout(answer.detail or "no answer in time")
        raise RelayBotError(answer.detail or "the bot could not answer")

    def invoke(self, method: int, request: bytes, timeout_s: float) -> bytes:
        """One call and its reply (see :meth:`receive` for the errors)."""
        return self.receive(self.send(method, request, timeout_s))

    def check(self, now: float) -> None:
        """Watchdog: cancel the stream if its call is past deadline and grace."""
        expires = self.expires
        if expires is not None and now > expires:
            self.cut_by_watchdog = True
            self._stream.cancel("no answer from the dial-in relay in time")

    def close(self) -> None:
        """End the stream (idempotent)."""
        _WATCHDOG.discard(self)
        self._stream.close()


class _Ended(grpc.RpcError):
    """The relay ended the stream without a status error (it should not): a lost connection."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the dial-in relay ended the stream"


class _Watchdog:
    """One daemon thread per process, checking the open relay streams ten times a second while
    there are any. Arming costs the caller one attribute store (:attr:`RelayStream.expires`)."""

    PERIOD_S = 0.1

    def __init__(self) -> None:
        self._streams: weakref.WeakSet[RelayStream] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, stream: RelayStream) -> None:
        with self._lock:
            self._streams.add(stream)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="relay-watchdog", daemon=True
                )
                self._thread.start()

    def discard(self, stream: RelayStream) -> None:
        with self._lock:
            self._streams.discard(stream)

    def _run(self) -> None:
        while True:
            time.sleep(self.PERIOD_S)
            with self._lock:
                streams = list(self._streams)
                if not streams:
                    self._thread = None
                    return
            now = time.monotonic()
            for stream in streams:
                stream.check(now)


_WATCHDOG = _Watchdog()
