"""Serve ``WatchMatch`` streams without tying up a request thread each, under caps nobody can
multiply.

The Arena server runs on ``grpc.aio``: unary calls are the plain (synchronous) servicer methods,
run by a bounded thread pool, while every open stream is a coroutine that costs no thread. The
match events themselves still come from the synchronous ``ArenaServicer.WatchMatch`` generator
(which blocks on the live bus and the database), so the :class:`StreamHub` runs that generator
once per *followed match* in a pump thread, and fans its messages out to every stream that
follows the same match. Two hundred spectators of one match cost one pump thread and one bus
subscription, not two hundred request threads.

What a stream follows is decided by ``resolve`` (for WatchMatch :func:`arena.server.watch.follow`):
the match's full id, a unique prefix resolved first — never the request's bytes, which a client
can vary at will (256 id prefixes, unknown protobuf fields appended) to make one match count as
hundreds. The pump runs a request rebuilt from that id alone, so every follower of a match shares
it; the stream shows nothing that depends on who asks.

Who a stream comes from is its *address* (:class:`ClientAddresses`): the peer's IP address,
IPv6 counted by its /64 (one host usually holds a whole /64), or — only when the peer is one of
the trusted proxies (``ARENA_TRUSTED_PROXIES``, default none) — the address that proxy put in
``x-forwarded-for``; and, for a call with a valid API token, also its *account*. Every stream
counts against its address and its account, so neither many accounts from one address nor one
account from many addresses multiplies the caps. All are refused with RESOURCE_EXHAUSTED and a
message that says which cap and what to do:

* ``max_streams_per_client`` open streams per address and per account;
* ``max_matches_per_client`` different matches followed at once per address and per account;
* ``max_streams`` open streams in total;
* ``max_pumps`` different matches followed at once in total (each holds a thread while its
  match is live). Reaching it takes that many distinct matches; then the match that has been
  followed longest by anonymous streams only *yields*: its streams end with RESOURCE_EXHAUSTED
  (saying so) and the newcomer gets its place. Only when every followed match has a signed-in
  follower is the newcomer refused.

A pump stops when its last stream goes (the generator sees ``is_active()`` turn false at its
next poll), when its match's stream ends, or when it yields; a stream that joins a pump late
first gets every message the pump has sent so far, so it sees the same stream as a caller who
came first.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena.server.errors import ApiError

log = logging.getLogger("arena.server.streams")

FORWARDED_FOR = "x-forwarded-for"

#: A pump's stream function: the synchronous servicer method, ``fn(request, context)``.
StreamFn = Callable[[Any, Any], Iterator[Any]]


@dataclass(frozen=True)
class Follow:
    """What a stream follows, once resolved: ``topic`` (the match id) is what pumps and the
    caps count; ``request`` is what the pump runs (rebuilt from the topic alone); ``account``
    names the caller's account (``None``: anonymous)."""

    topic: str
    request: Any
    account: str | None = None


#: Turns a request and its metadata into a :class:`Follow` (may block: it runs in a thread);
#: raises :class:`ApiError` for a request it refuses (unknown match, bad token).
Resolver = Callable[[Any, Sequence[tuple[str, Any]]], Follow]


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

    It is active while at least one stream listens and the pump has not yielded; ``abort`` ends
    the pump with that status for every listener. It carries no caller's metadata: what a pump
    streams must not depend on who asked (every follower of the match shares it).
    """

    def __init__(self, pump: _Pump) -> None:
        self._pump = pump

    def is_active(self) -> bool:
        return self._pump.hub._still_wanted(self._pump)

    def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        raise _Aborted(code, details)

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return ()

    def peer(self) -> str:
        return "arena-watch-pump"

    def time_remaining(self) -> float | None:
        return None

    def set_code(self, code: grpc.StatusCode) -> None:
        pass

    def set_details(self, details: str) -> None:
        pass

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False


@dataclass(eq=False)
class _Listener:
    loop: asyncio.AbstractEventLoop
    #: The cap keys the stream counts against: its address, and its account if signed in.
    clients: tuple[str, ...] = ()
    signed_in: bool = False
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)

    def put(self, item: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: the server is stopping
            pass


@dataclass(eq=False)
class _Pump:
    hub: StreamHub
    key: str
    #: Order of creation (the oldest anonymous-only pump yields first).
    number: int
    listeners: set[_Listener] = field(default_factory=set)
    #: Every message sent so far, then ``_END`` or a ``_Failure``: what a late listener replays.
    sent: list[Any] = field(default_factory=list)
    finished: bool = False


def _by_topic(request: Any, metadata: Sequence[tuple[str, Any]]) -> Follow:
    """The resolver when none is given: the request's ``match_id`` as it is, anonymous."""
    return Follow(str(getattr(request, "match_id", "")), request)


class StreamHub:
    """Pumps shared by every follower of a match, and the caps on open streams (module docstring)."""

    def __init__(
        self,
        max_streams: int,
        max_streams_per_client: int,
        max_pumps: int,
        max_matches_per_client: int = 8,
        resolve: Resolver | None = None,
        addresses: ClientAddresses | None = None,
    ) -> None:
        self.max_streams = max_streams
        self.max_streams_per_client = max_streams_per_client
        self.max_pumps = max_pumps
        self.max_matches_per_client = max_matches_per_client
        self.resolve = resolve or _by_topic
        self.addresses = addresses or ClientAddresses()
        self._lock = threading.Lock()
        self._pumps: dict[str, _Pump] = {}
        self._numbers = itertools.count()
        #: Per cap key (address or account): open streams, and streams per followed match.
        self._streams_of: dict[str, int] = {}
        self._matches_of: dict[str, dict[str, int]] = {}
        self._open = 0
        #: Pumps that yielded their place to a newer match (figures for tests and logs).
        self.yielded = 0

    # --- figures (tests, logs) ---------------------------------------------------------------
    @property
    def open_streams(self) -> int:
        return self._open

    @property
    def pumps(self) -> int:
        return len(self._pumps)

    # --- caps --------------------------------------------------------------------------------
    def _admit(self, clients: tuple[str, ...], topic: str) -> None:
        """Count a new stream of ``topic`` against each of ``clients``, or refuse it (lock held)."""
        for client in clients:
            held = self._streams_of.get(client, 0)
            if held >= self.max_streams_per_client:
                raise StreamRefused(
                    f"too many open WatchMatch streams from {_shown(client)} (limit "
                    f"{self.max_streams_per_client} per client); close one before opening another"
                )
            following = self._matches_of.get(client, {})
            if topic not in following and len(following) >= self.max_matches_per_client:
                raise StreamRefused(
                    f"{_shown(client)} already follows {len(following)} different matches (limit "
                    f"{self.max_matches_per_client} per client); close a stream of one of them first"
                )
        if self._open >= self.max_streams:
            raise StreamRefused(
                f"the server already serves its limit of {self.max_streams} WatchMatch streams; try again later"
            )
        for client in clients:
            self._streams_of[client] = self._streams_of.get(client, 0) + 1
            following = self._matches_of.setdefault(client, {})
            following[topic] = following.get(topic, 0) + 1
        self._open += 1

    def _release(self, clients: tuple[str, ...], topic: str) -> None:
        with self._lock:
            self._uncount(clients, topic)

    def _uncount(self, clients: tuple[str, ...], topic: str) -> None:
        """Undo :meth:`_admit` (lock held)."""
        self._open -= 1
        for client in clients:
            left = self._streams_of.get(client, 1) - 1
            if left > 0:
                self._streams_of[client] = left
            else:
                self._streams_of.pop(client, None)
            following = self._matches_of.get(client, {})
            rest = following.get(topic, 1) - 1
            if rest > 0:
                following[topic] = rest
            else:
                following.pop(topic, None)
                if not following:
                    self._matches_of.pop(client, None)

    # --- pumps -------------------------------------------------------------------------------
    def _join(self, fn: StreamFn, follow: Follow, listener: _Listener) -> _Pump:
        """Admit the stream and add it to its match's pump, starting one (making room) if needed."""
        key = follow.topic
        with self._lock:
            self._admit(listener.clients, key)
            try:
                pump = self._pumps.get(key)
                if pump is not None:
                    pump.listeners.add(listener)
                    for item in pump.sent:
                        listener.put(item)
                    return pump
                if len(self._pumps) >= self.max_pumps:
                    self._make_room()
                pump = self._pumps[key] = _Pump(self, key, next(self._numbers))
                pump.listeners.add(listener)
            except StreamRefused:
                self._uncount(listener.clients, key)
                raise
        thread = threading.Thread(
            target=self._run, args=(pump, fn, follow.request, _PumpContext(pump)), name="arena-watch-pump", daemon=True
        )
        thread.start()
        return pump

    def _make_room(self) -> None:
        """The total cap is reached (lock held): the match followed longest by anonymous streams
        only yields its place — its streams end, saying why — else the newcomer is refused."""
        anonymous = [p for p in self._pumps.values() if not any(li.signed_in for li in p.listeners)]
        if not anonymous:
            raise StreamRefused(
                f"the server already follows its limit of {self.max_pumps} different matches for "
                "WatchMatch, each with a signed-in watcher; try again later"
            )
        oldest = min(anonymous, key=lambda p: p.number)
        failure = _Failure(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"this stream made room for a newer one: the server follows at most {self.max_pumps} "
            "different matches at once and this match had only anonymous watchers; watch again "
            "later, or with an API token (signed-in watchers are never made to yield)",
        )
        for listener in oldest.listeners:
            listener.put(failure)
        oldest.listeners.clear()
        self._retire(oldest)
        self.yielded += 1
        log.info("WatchMatch of match %s yielded its place to a newer match", oldest.key)

    def _leave(self, pump: _Pump, listener: _Listener) -> None:
        with self._lock:
            pump.listeners.discard(listener)

    def _still_wanted(self, pump: _Pump) -> bool:
        """False once nobody listens or the pump yielded; the pump is then unlisted so a new
        stream starts afresh."""
        with self._lock:
            if pump.listeners and not pump.finished:
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
        """Serve one stream: resolve what it follows, admit it under the caps, join (or start)
        its match's pump, relay messages."""
        metadata = tuple(context.invocation_metadata() or ())
        address = self.addresses.client(context.peer(), metadata)
        try:
            follow = await asyncio.to_thread(self.resolve, request, metadata)
        except ApiError as exc:
            await context.abort(exc.code, exc.message)
        except Exception:  # noqa: BLE001 - a client never sees a traceback
            log.exception("resolving a WatchMatch request failed")
            await context.abort(grpc.StatusCode.INTERNAL, "internal error; the server log has the details")
        clients = (address,) if follow.account is None else (address, follow.account)
        listener = _Listener(asyncio.get_running_loop(), clients, follow.account is not None)
        try:
            pump = self._join(fn, follow, listener)
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
            self._release(clients, follow.topic)


def _shown(client: str) -> str:
    """A cap key as a message shows it: ``addr:10.0.0.7`` -> ``10.0.0.7``, ``user:3`` -> ``your account``."""
    kind, _, rest = client.partition(":")
    return "your account" if kind == "user" else rest


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


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443", as some proxies write it
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.9:5123"
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_key(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """The cap key of an address: an IPv4 address itself, an IPv6 address by its /64 (a single
    host, or a single customer, is usually given a whole /64 and can pick any address in it)."""
    if isinstance(ip, ipaddress.IPv6Address):
        return f"addr:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"addr:{ip}"


class ClientAddresses:
    """Which address a call comes from: its peer, unless the peer is a trusted proxy.

    A trusted proxy's ``x-forwarded-for`` metadata (every value, comma-separated, oldest hop
    first) is read from the right: the first address that is not itself a trusted proxy is the
    client. Nobody is trusted by default, since anyone can send that header: believing it from
    every peer would let one client be any number of clients.
    """

    def __init__(self, trusted: Iterable[str] = ()) -> None:
        self.trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = tuple(
            _network(item) for item in trusted
        )

    def _is_trusted(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        return ip is not None and any(ip.version == net.version and ip in net for net in self.trusted)

    def client(self, peer: str, metadata: Sequence[tuple[str, Any]] = ()) -> str:
        """The cap key of the call's client (``addr:…``; ``addr:unix`` for a Unix socket)."""
        ip = _ip(client_of(peer))
        if ip is None:
            return f"addr:{client_of(peer)}"
        if self.trusted and self._is_trusted(ip):
            hops: list[str] = []
            for key, value in metadata:
                if key.lower() == FORWARDED_FOR:
                    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
                    hops.extend(h for h in (p.strip() for p in text.split(",")) if h)
            for hop in reversed(hops):
                forwarded = _ip(hop)
                if forwarded is None:
                    break  # garbage from the proxy's side: count the proxy itself
                ip = forwarded
                if not self._is_trusted(forwarded):
                    break
        return address_key(ip)


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    text = text.strip()
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address or network") from None


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
