"""Unary latency while many anonymous ``WatchMatch`` streams are open, and live fan-out.

Set-up: a fresh SQLite database with one user and one match that is running (so every stream
stays open, waiting for events), an in-process Arena server on a real TCP socket, and
``streams`` anonymous watchers on ``channels`` separate connections (a ``grpc.aio`` client on
its own thread, so the watchers cost the client no threads either). Measured: ``WhoAmI`` and
``GetLeaderboard`` latency p50/p99 with no stream open and with all of them open (one caller,
then ``threads`` callers at once), and how long one published event takes to reach every
watcher. Before the server moved to ``grpc.aio`` each stream held one of the 32 request
threads, so 32 watchers stopped every unary call; here the figure is what unary calls cost
beside 200 streams.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

GAME = "solenia"


class StreamLoad:
    """``n`` WatchMatch streams of one match on ``channels`` connections, read by coroutines."""

    def __init__(self, address: str, match_id: str, n: int, channels: int = 10) -> None:
        self.address = address
        self.match_id = match_id
        self.n = n
        self.channels = channels
        self.received: list[list[Any]] = [[] for _ in range(n)]
        self.errors: list[grpc.aio.AioRpcError] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="stream-load")
        self._tasks: list[asyncio.Task[None]] = []
        self._chans: list[grpc.aio.Channel] = []
        self._closing = False

    def start(self) -> StreamLoad:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), self._loop).result(30)
        return self

    async def _open(self) -> None:
        from referee._proto import arena_pb2 as pb
        from referee._proto import arena_pb2_grpc

        # Separate connections, as separate spectators would have.
        self._chans = [
            grpc.aio.insecure_channel(self.address, options=[("grpc.use_local_subchannel_pool", 1)])
            for _ in range(self.channels)
        ]
        stubs = [arena_pb2_grpc.ArenaStub(c) for c in self._chans]

        async def read(i: int) -> None:
            call = stubs[i % len(stubs)].WatchMatch(pb.WatchMatchRequest(match_id=self.match_id))
            try:
                async for event in call:
                    self.received[i].append((time.perf_counter(), event))
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.CANCELLED or not self._closing:
                    self.errors.append(exc)
            except Exception as exc:  # noqa: BLE001 - reported, never lost in a task
                self.errors.append(exc)

        self._tasks = [self._loop.create_task(read(i)) for i in range(self.n)]

    def wait_all(self, predicate: Callable[[list[Any]], bool], timeout: float) -> bool:
        """Wait until ``predicate(received)`` holds for every stream."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(predicate(r) for r in self.received):
                return True
            time.sleep(0.01)
        return False

    def close(self) -> None:
        self._closing = True

        async def shut() -> None:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for chan in self._chans:
                await chan.close()
            # Let grpc's own per-call tasks see their calls end before the loop stops.
            await asyncio.sleep(0.1)

        try:
            asyncio.run_coroutine_threadsafe(shut(), self._loop).result(30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()


def add_running_match(game: str = GAME) -> str:
    """A match row that is running (no worker will ever finish it): its watchers wait."""
    from arena.db import Match, session_scope

    match_id = uuid.uuid4().hex
    with session_scope() as s:
        s.add(Match(id=match_id, game=game, variant="base", players=2, seed=1, status="running"))
    return match_id


def latency(call: Callable[[], object], calls: int, threads: int = 1) -> dict[str, float]:
    """p50/p99 (ms) of ``calls`` calls split over ``threads`` concurrent callers."""
    call()  # warm-up
    times: list[float] = []
    lock = threading.Lock()

    def loop(k: int) -> None:
        mine = []
        for _ in range(k):
            t0 = time.perf_counter()
            call()
            mine.append(time.perf_counter() - t0)
        with lock:
            times.extend(mine)

    workers = [threading.Thread(target=loop, args=(calls // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    times.sort()
    return {
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 2),
        "max_ms": round(times[-1] * 1000, 2),
        "calls": len(times),
    }


def bench(streams: int = 200, calls: int = 400, threads: int = 8) -> dict:
    from arena.db import dispose_all
    from arena.sdk.auth import auth_metadata
    from arena.server.app import start_server
    from arena.server.config import ServerConfig
    from referee._proto import arena_pb2 as pb
    from referee._proto import arena_pb2_grpc

    tmp = Path(tempfile.mkdtemp(prefix="bench-streams-"))
    saved = {k: os.environ.get(k) for k in ("ARENA_DATABASE_URL", "ARENA_BROKER_URL")}
    os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ.pop("ARENA_BROKER_URL", None)
    result: dict = {"streams": streams, "unary_threads": 32, "calls": calls, "concurrent_callers": threads}
    try:
        config = ServerConfig(data_dir=tmp / "data", max_streams_per_client=streams + 10)
        running = start_server(config, "127.0.0.1:0")
        channel = grpc.insecure_channel(running.address)
        try:
            arena = arena_pb2_grpc.ArenaStub(channel)
            meta = auth_metadata(arena.Register(pb.RegisterRequest(name="bench")).token)
            unary: dict[str, Callable[[], object]] = {
                "whoami": lambda: arena.WhoAmI(pb.WhoAmIRequest(), metadata=meta, timeout=10),
                "leaderboard": lambda: arena.GetLeaderboard(pb.GetLeaderboardRequest(game=GAME), timeout=10),
            }
            for name, call in unary.items():
                result[f"{name}_no_streams"] = latency(call, calls)
                result[f"{name}_no_streams_{threads}_callers"] = latency(call, calls, threads)
            match_id = add_running_match()
            t0 = time.perf_counter()
            load = StreamLoad(running.address, match_id, streams).start()
            try:
                deadline = time.monotonic() + 60
                while running.hub.open_streams < streams and time.monotonic() < deadline:
                    time.sleep(0.01)
                result["open_streams"] = running.hub.open_streams
                result["open_all_s"] = round(time.perf_counter() - t0, 2)
                result["pump_threads"] = running.hub.pumps
                for name, call in unary.items():
                    result[f"{name}_{streams}_streams"] = latency(call, calls)
                    result[f"{name}_{streams}_streams_{threads}_callers"] = latency(call, calls, threads)
                sent = time.perf_counter()
                running.servicer.bus.publish(match_id, {"type": "decision", "n": 0, "seq": 0})
                if load.wait_all(lambda r: len(r) >= 1, 30):
                    arrivals = sorted(r[0][0] - sent for r in load.received)
                    result["fanout_one_event_all_ms"] = round(arrivals[-1] * 1000, 1)
                    result["fanout_one_event_p50_ms"] = round(statistics.median(arrivals) * 1000, 1)
                result["stream_errors"] = len(load.errors)
            finally:
                load.close()
        finally:
            channel.close()
            running.stop(grace=0)
    finally:
        dispose_all()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=2))
