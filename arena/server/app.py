"""Build and run the Arena gRPC server (with health checking and reflection)."""

from __future__ import annotations

import logging
import os
import signal
import threading
from concurrent import futures
from dataclasses import dataclass

import grpc

from arena._proto import arena_pb2, arena_pb2_grpc
from arena.celery_app import has_broker
from arena.db import init_db
from arena.grpc_util import add_health_and_reflection
from arena.server.config import ServerConfig
from arena.server.live import LiveBus
from arena.server.servicer import ArenaServicer

log = logging.getLogger("arena.server")

SERVICE_NAME = arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name


#: Seconds between ladder ticks when this process is the only worker (no broker, no beat).
LADDER_TICK_S = float(os.environ.get("ARENA_LADDER_TICK", "10"))


class LadderTicker(threading.Thread):
    """Without a broker there is no Celery beat: the server keeps its ladders' queues topped up.

    With a broker, beat does this (``arena.celery_app``), so the ticker is not started.
    """

    def __init__(self, interval_s: float) -> None:
        super().__init__(daemon=True, name="ladder-ticker")
        self.interval_s = interval_s
        self.stopped = threading.Event()

    def run(self) -> None:
        from arena import tasks

        while not self.stopped.wait(self.interval_s):
            try:
                tasks.ladder_tick_all()
            except Exception:  # noqa: BLE001 - try again on the next tick
                log.exception("ladder tick failed")


@dataclass
class RunningServer:
    server: grpc.Server
    servicer: ArenaServicer
    port: int
    ticker: LadderTicker | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self, grace: float | None = 1.0) -> None:
        if self.ticker is not None:
            self.ticker.stopped.set()
        self.server.stop(grace).wait()
        self.servicer.close()


def start_server(
    config: ServerConfig | None = None, address: str = "[::]:50051", bus: LiveBus | None = None
) -> RunningServer:
    """Start serving on ``address`` (port 0 picks a free port) and return at once."""
    config = config or ServerConfig()
    init_db()
    config.bots_dir.mkdir(parents=True, exist_ok=True)
    limit = config.max_message_bytes
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.max_workers, thread_name_prefix="arena-rpc"),
        options=[
            ("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            # A second server on a taken port must fail, not silently share it.
            ("grpc.so_reuseport", 0),
        ],
    )
    servicer = ArenaServicer(config, bus)
    arena_pb2_grpc.add_ArenaServicer_to_server(servicer, server)
    add_health_and_reflection(server, SERVICE_NAME)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:  # grpc raises this when the port is taken
        servicer.close()
        raise OSError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        servicer.close()
        raise OSError(f"cannot listen on {address}")
    server.start()
    resumed = servicer.submissions.resume_pending()
    if resumed:
        log.info("re-qualifying %d submission(s) left over from the last run", resumed)
    ticker = None
    if not has_broker():
        ticker = LadderTicker(LADDER_TICK_S)
        ticker.start()
    return RunningServer(server, servicer, port, ticker)


def serve(port: int = 50051, host: str = "[::]", config: ServerConfig | None = None) -> None:
    """Run the server until SIGINT/SIGTERM."""
    running = start_server(config, f"{host}:{port}")
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    log.info("arena server listening on %s:%d", host, running.port)
    stop.wait()
    running.stop(grace=2.0)
