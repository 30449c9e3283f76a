"""Build and run the Arena gRPC server (with health checking and reflection)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import os
import signal
import threading
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc

from arena.db import init_db
from arena.sdk.grpc_util import add_health_and_reflection_aio
from arena.server import watch
from arena.server.config import ServerConfig
from arena.server.dialin import BOT_SERVICE, RELAY_SERVICE, DialinHub
from arena.server.servicer import ArenaServicer
from arena.server.streams import AioArenaServicer, StreamHub
from arena.workers.celery_app import has_broker
from arena.workers.live import LiveBus
from referee import dialin_client
from referee._proto import arena_pb2, arena_pb2_grpc
from referee.tls import server_credentials

log = logging.getLogger("arena.server")

SERVICE_NAME = arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name


#: Seconds between ladder ticks when this process is the only worker (no broker, no beat).
LADDER_TICK_S = float(os.environ.get("ARENA_LADDER_TICK", "10"))


class LadderTicker(threading.Thread):
    """Without a broker there is no Celery beat: the server keeps its ladders' queues topped up,
    and plays the challenges other processes stored (the website's challenge button) or a
    restart left pending (:mod:`arena.play.challenges`).

    With a broker, beat does this (``arena.workers.celery_app``), so the ticker is not started.
    """

    def __init__(self, interval_s: float) -> None:
        super().__init__(daemon=True, name="ladder-ticker")
        self.interval_s = interval_s
        self.stopped = threading.Event()

    def run(self) -> None:
        from arena.workers import tasks

        while not self.stopped.wait(self.interval_s):
            try:
                tasks.ladder_tick_all()
            except Exception:  # noqa: BLE001 - try again on the next tick
                log.exception("ladder tick failed")
            try:
                tasks.sweep(kind="challenge", wait=0)
            except Exception:  # noqa: BLE001 - try again on the next tick
                log.exception("challenge sweep failed")
            try:  # the website's events and every round deadline (with a broker: beat's sweep)
                tasks.sweep_events()
            except Exception:  # noqa: BLE001 - try again on the next tick
                log.exception("event sweep failed")


class _LoopThread(threading.Thread):
    """The asyncio loop the aio server lives on, run in a thread so ``start_server`` returns
    at once (tests, benchmarks and ``serve`` all drive the server from ordinary threads)."""

    def __init__(self) -> None:
        super().__init__(daemon=True, name="arena-aio")
        self.loop = asyncio.new_event_loop()

    def run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Any, timeout: float | None = None) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.join(timeout=10)
        if not self.is_alive():
            self.loop.close()


@dataclass
class RunningServer:
    server: grpc.aio.Server
    servicer: ArenaServicer
    port: int
    ticker: LadderTicker | None = None
    hub: StreamHub | None = None
    tls: bool = False
    dialin: DialinHub | None = None
    _loop: _LoopThread | None = None
    _pool: futures.ThreadPoolExecutor | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def relay_address(self) -> str:
        """Where this process's own matches reach the dial-in relay (see referee.dialin_client)."""
        return f"tls://localhost:{self.port}" if self.tls else self.address

    def stop(self, grace: float | None = 1.0) -> None:
        if self.ticker is not None:
            self.ticker.stopped.set()
        dialin_client.clear_local_relay(self.relay_address)
        if self._loop is not None:
            if self.dialin is not None:
                self._loop.call(self.dialin.aclose())
            self._loop.call(self.server.stop(grace))
            self._loop.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self.servicer.close()


def _options(config: ServerConfig) -> list[tuple[str, Any]]:
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", 64 * 1024 * 1024),
        # A second server on a taken port must fail, not silently share it.
        ("grpc.so_reuseport", 0),
        # Dial-in bots (arena.sdk.connect) ping every 20 s to keep an idle ConnectBot stream
        # alive through NAT; the default policy (one ping per 5 min) would answer GOAWAY
        # "too_many_pings" and cut every connected bot.
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10000),
    ]


class _Undecodable:
    """What a request that is not a valid protobuf message deserialises to, so its handler
    refuses it with INVALID_ARGUMENT (grpc.aio itself would answer UNKNOWN)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _checked(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
    decode = handler.request_deserializer
    message = f"the request to {method} is not a valid protobuf message of its type"

    def deserialize(data: bytes) -> Any:
        try:
            return decode(data) if decode is not None else data
        except Exception as exc:  # noqa: BLE001 - any decode failure is the caller's mistake
            return _Undecodable(exc)

    if handler.unary_unary is not None:
        behaviour = handler.unary_unary

        def unary(request: Any, context: Any) -> Any:
            if isinstance(request, _Undecodable):
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)
            return behaviour(request, context)

        return handler._replace(request_deserializer=deserialize, unary_unary=unary)  # type: ignore[attr-defined]
    if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
        stream = handler.unary_stream

        async def streaming(request: Any, context: Any) -> Any:
            if isinstance(request, _Undecodable):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, message)
            async for item in stream(request, context):
                yield item

        return handler._replace(request_deserializer=deserialize, unary_stream=streaming)  # type: ignore[attr-defined]
    return handler


class _CheckedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose method handlers are wrapped by :func:`_checked`."""

    def __init__(self, inner: grpc.GenericRpcHandler) -> None:
        self._inner = inner
        self._cache: dict[str, grpc.RpcMethodHandler] = {}

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = self._inner.service(details)
        if handler is None:
            return None
        method = details.method
        if method not in self._cache:
            self._cache[method] = _checked(handler, method)
        return self._cache[method]


class _CheckedRegistration:
    """Stands in for the server while the generated ``add_ArenaServicer_to_server`` runs, and
    registers every method (generic and pre-registered alike) with :func:`_checked` around it."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self._server.add_generic_rpc_handlers(tuple(_CheckedGeneric(h) for h in handlers))

    def add_registered_method_handlers(self, service: str, handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        checked = {name: _checked(h, f"/{service}/{name}") for name, h in handlers.items()}
        self._server.add_registered_method_handlers(service, checked)


class _Servicer(AioArenaServicer):
    """The aio servicer plus ``ConnectBot``, served by the dial-in hub on the event loop."""

    def __init__(self, servicer: ArenaServicer, hub: StreamHub, dialin_hub: DialinHub) -> None:
        super().__init__(servicer, hub)
        self._dialin = dialin_hub

    async def ConnectBot(self, requests: Any, context: grpc.aio.ServicerContext) -> None:  # noqa: N802
        await self._dialin.connect(requests, context)


async def _build(
    config: ServerConfig, servicer: ArenaServicer, hub: StreamHub, pool: futures.ThreadPoolExecutor,
    address: str, credentials: grpc.ServerCredentials | None, dialin_hub: DialinHub,
) -> tuple[grpc.aio.Server, int]:
    """Create, bind and start the aio server on the running loop; returns it and its port."""
    server = grpc.aio.server(migration_thread_pool=pool, options=_options(config))
    arena_pb2_grpc.add_ArenaServicer_to_server(_Servicer(servicer, hub, dialin_hub), _CheckedRegistration(server))
    server.add_generic_rpc_handlers((dialin_hub.relay_handler(),))
    # Reflection lists every service this port answers: Arena, the dial-in relays (DialinRelay,
    # and the Bot calls relayed to a dialled-in bot), health and reflection itself.
    await add_health_and_reflection_aio(server, SERVICE_NAME, RELAY_SERVICE, BOT_SERVICE)
    try:
        if credentials is not None:
            port = server.add_secure_port(address, credentials)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError as exc:  # grpc raises this when the port is taken
        raise OSError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    return server, port


def start_server(
    config: ServerConfig | None = None, address: str = "[::]:50051", bus: LiveBus | None = None
) -> RunningServer:
    """Start serving on ``address`` (port 0 picks a free port) and return at once.

    TLS when ``config.tls_cert``/``tls_key`` are set (then the port speaks nothing else);
    a wrong TLS file raises :class:`referee.tls.TlsError` before anything listens.
    """
    config = config or ServerConfig()
    credentials = server_credentials(config.tls_cert, config.tls_key)
    init_db()
    config.bots_dir.mkdir(parents=True, exist_ok=True)
    servicer = ArenaServicer(config, bus)
    hub = StreamHub(config.max_streams, config.max_streams_per_client, config.max_watched_matches,
                    config.max_watched_matches_per_client, functools.partial(watch.follow, servicer.url),
                    servicer.addresses)
    pool = futures.ThreadPoolExecutor(max_workers=config.max_workers, thread_name_prefix="arena-rpc")
    dialin_hub = DialinHub(servicer.submissions, servicer._bot_detail, pool, servicer.url, servicer.addresses)
    loop = _LoopThread()
    loop.start()
    try:
        server, port = loop.call(_build(config, servicer, hub, pool, address, credentials, dialin_hub))
    except BaseException:
        loop.close()
        pool.shutdown(wait=False)
        servicer.close()
        raise
    resumed = servicer.submissions.resume_pending()
    if resumed:
        log.info("re-qualifying %d submission(s) left over from the last run", resumed)
    ticker = None
    if not has_broker():
        ticker = LadderTicker(LADDER_TICK_S)
        ticker.start()
    running = RunningServer(server, servicer, port, ticker, hub, credentials is not None, dialin_hub, loop, pool)
    dialin_client.set_local_relay(running.relay_address)
    return running


def serve(port: int = 50051, host: str = "[::]", config: ServerConfig | None = None) -> None:
    """Run the server until SIGINT/SIGTERM."""
    running = start_server(config, f"{host}:{port}")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    log.info("arena server listening on %s:%d (%s)", host, running.port, "TLS" if running.tls else "plaintext")
    stop.wait()
    running.stop(grace=2.0)
