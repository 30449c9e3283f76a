"""Serve ``WatchMatch`` streams without tying up a request thread each.

The Arena server runs on ``grpc.aio``: unary calls are the plain (synchronous) servicer methods,
run by a bounded thread pool, while every open stream is a coroutine that costs no thread. The
match events themselves still come from the synchronous ``ArenaServicer.WatchMatch`` generator
(which blocks on the live bus and the database), so the :class:`StreamHub` runs that generator
once per *distinct request* — the same match, the same caller token — in a pump thread, and fans
its messages out to every stream that asked for the same thing. Two hundred spectators of one
match cost one pump thread and one bus subscription, not two hundred request threads.

Three caps keep one client (or many) from exhausting the server, each refused with
RESOURCE_EXHAUSTED and a message that says which cap and what to do:

* ``max_streams_per_client`` open streams per client, a client being its IP address (behind a
  reverse proxy that is the proxy's address, so raise the cap there);
* ``max_streams`` open streams in total;
* ``max_pumps`` distinct requests being pumped at once (each holds a thread while its match
  is live).

A pump stops when its last stream goes (the generator sees ``is_active()`` turn false at its
next poll) or when the match's stream ends; a stream that joins a pump late first gets every
message the pump has sent so far, so it sees the same stream as a caller who came first.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena.server.auth import token_from_metadata

log = logging.getLogger("arena.server.streams")

#: A pump's stream function: the synchronous servicer method, ``fn(request, context)``.
StreamFn = Callable[[Any, Any], Iterator[Any]]


class StreamRefused(Exception):
    """A cap is reached: the stream is refused with RESOURCE_EXHAUSTED and this message."""


@dataclass(frozen=True)
class _Failure:
    """How a pump's generator ended with a status other than OK."""

    code: grpc.StatusCode
    message: str


_END = object()


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.failure = _Failure(code, message)


class _PumpContext:
    """The ``ServicerContext`` the synchronous generator sees inside a pump.

    It is active while at least one stream listens; ``abort`` ends the pump with that status
    for every listener. Metadata and peer are those of the stream that started the pump (all
    its listeners carry the same token, see :meth:`StreamHub._key`).
    """

    def __init__(self, pump: _Pump, metadata: Sequence[tuple[str, Any]], peer: str) -> None:
        self._pump = pump
        self._metadata = tuple(metadata)
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details = ""

    def is_active(self) -> bool:
        return self._pump.hub._still_wanted(self._pump)

    def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise _Aborted(code, details)

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        return None

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False


@dataclass(eq=False)
class _Listener:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)

    def put(self, item: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: the server is stopping
            pass


@dataclass(eq=False)
class _Pump:
    hub: StreamHub
    key: tuple[bytes, str]
    listeners: set[_Listener] = field(default_factory=set)
    #: Every message sent so far, then ``_END`` or a ``_Failure``: what a late listener replays.
    sent: list[Any] = field(default_factory=list)
    finished: bool = False


class StreamHub:
    """Pumps shared by identical requests, and the caps on open streams (module docstring)."""

    def __init__(self, max_streams: int, max_streams_per_client: int, max_pumps: int) -> None:
        self.max_streams = max_streams
        self.max_streams_per_client = max_streams_per_client
        self.max_pumps = max_pumps
        self._lock = threading.Lock()
        self._pumps: dict[tuple[bytes, str], _Pump] = {}
        self._per_client: dict[str, int] = {}
        self._open = 0

    # --- figures (tests, logs) ---------------------------------------------------------------
    @property
    def open_streams(self) -> int:
        return self._open

    @property
    def pumps(self) -> int:
        return len(self._pumps)

    # --- caps --------------------------------------------------------------------------------
    def _admit(self, client: str) -> None:
        with self._lock:
            held = self._per_client.get(client, 0)
            if held >= self.max_streams_per_client:
                raise StreamRefused(
                    f"too many open WatchMatch streams from {client} (limit {self.max_streams_per_client} "
                    "per client); close one before opening another"
                )
            if self._open >= self.max_streams:
                raise StreamRefused(
                    f"the server already serves its limit of {self.max_streams} WatchMatch streams; try again later"
                )
            self._per_client[client] = held + 1
            self._open += 1

    def _release(self, client: str) -> None:
        with self._lock:
            self._open -= 1
            left = self._per_client.get(client, 1) - 1
            if left > 0:
                self._per_client[client] = left
            else:
                self._per_client.pop(client, None)

    # --- pumps -------------------------------------------------------------------------------
    @staticmethod
    def _key(request: Any, metadata: Sequence[tuple[str, Any]]) -> tuple[bytes, str]:
        """Streams share a pump only when they asked the very same thing as the same caller."""
        token = token_from_metadata(metadata) or ""
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest() if token else ""
        return request.SerializeToString(deterministic=True), digest

    def _join(
        self, fn: StreamFn, request: Any, metadata: Sequence[tuple[str, Any]], peer: str, listener: _Listener
    ) -> _Pump:
        key = self._key(request, metadata)
        with self._lock:
            pump = self._pumps.get(key)
            if pump is not None:
                pump.listeners.add(listener)
                for item in pump.sent:
                    listener.put(item)
                return pump
            if len(self._pumps) >= self.max_pumps:
                raise StreamRefused(
                    f"the server already follows its limit of {self.max_pumps} different matches for "
                    "WatchMatch; try again later"
                )
            pump = self._pumps[key] = _Pump(self, key)
            pump.listeners.add(listener)
        context = _PumpContext(pump, metadata, peer)
        thread = threading.Thread(
            target=self._run, args=(pump, fn, request, context), name="arena-watch-pump", daemon=True
        )
        thread.start()
        return pump

    def _leave(self, pump: _Pump, listener: _Listener) -> None:
        with self._lock:
            pump.listeners.discard(listener)

    def _still_wanted(self, pump: _Pump) -> bool:
        """False once nobody listens; the pump is then unlisted so a new stream starts afresh."""
        with self._lock:
            if pump.listeners:
                return True
            self._retire(pump)
            return False

    def _retire(self, pump: _Pump) -> None:
        pump.finished = True
        if self._pumps.get(pump.key) is pump:
            del self._pumps[pump.key]

    def _send(self, pump: _Pump, item: Any) -> None:
        with self._lock:
            pump.sent.append(item)
            for listener in pump.listeners:
                listener.put(item)

    def _run(self, pump: _Pump, fn: StreamFn, request: Any, context: _PumpContext) -> None:
        last: Any = _END
        messages = fn(request, context)
        try:
            for message in messages:
                if pump.finished:
                    break
                self._send(pump, message)
        except _Aborted as exc:
            last = exc.failure
        except Exception:  # noqa: BLE001 - the listeners get INTERNAL, the log the details
            log.exception("WatchMatch pump failed")
            last = _Failure(grpc.StatusCode.INTERNAL, "internal error while streaming; the server log has the details")
        finally:
            close = getattr(messages, "close", None)
            if close is not None:
                close()
        with self._lock:
            pump.sent.append(last)
            for listener in pump.listeners:
                listener.put(last)
            self._retire(pump)

    # --- the stream a client sees -----------------------------------------------------------------
    async def stream(self, fn: StreamFn, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        """Serve one stream: admit it under the caps, join (or start) its pump, relay messages."""
        client = client_of(context.peer())
        try:
            self._admit(client)
        except StreamRefused as exc:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        try:
            listener = _Listener(asyncio.get_running_loop())
            try:
                pump = self._join(fn, request, context.invocation_metadata() or (), context.peer(), listener)
            except StreamRefused as exc:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
            try:
                while True:
                    item = await listener.queue.get()
                    if item is _END:
                        return
                    if isinstance(item, _Failure):
                        await context.abort(item.code, item.message)
                    yield item
            finally:
                self._leave(pump, listener)
        finally:
            self._release(client)


def client_of(peer: str) -> str:
    """The client part of a gRPC peer string: its IP address without the port.

    ``ipv4:10.0.0.7:53412`` -> ``10.0.0.7``, ``ipv6:[::1]:53412`` -> ``::1``; a Unix socket
    peer (``unix:...``) is one client.
    """
    kind, _, rest = (peer or "").partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].split("]", 1)[0]
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    return kind or "unknown"


class AioArenaServicer:
    """What the aio server calls: every Arena method of ``servicer`` as it is, except
    ``WatchMatch``, which is served through ``hub`` (an async generator, no thread held)."""

    def __init__(self, servicer: Any, hub: StreamHub) -> None:
        self._servicer = servicer
        self._hub = hub

    def __getattr__(self, name: str) -> Any:
        return getattr(self._servicer, name)

    async def WatchMatch(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:  # noqa: N802
        async for message in self._hub.stream(self._servicer.WatchMatch, request, context):
            yield message
