"""The dial-in path's cost per decision against a bare gRPC call to the same bot.

Both sides run the benchmark bot's ``act`` (``bench_bot/bot.py``) in a process of its own:

* bare: the bot listens on 127.0.0.1 (a remote bot) and the referee's :class:`BotClient` calls
  ``Act`` on it directly — one gRPC round trip;
* dial-in: the bot dials in to an Arena server (``ConnectBot``) and the referee's client reaches
  it through the server's relay — the route a worker takes (arena/dialin.py): a unary call to
  the server, a message down the bot's stream, the answer up it, the reply back.

The bot reports its think time in the comment; it is subtracted on both sides.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena._proto import bot_pb2

BENCH_BOT = Path(__file__).resolve().parent / "bench_bot"
ROOT = Path(__file__).resolve().parent.parent
_DIAL = (
    "import runpy, sys; from arena.sdk import connect_bot; "
    "act = runpy.run_path(sys.argv[1])['act']; "
    "connect_bot(act, server=sys.argv[2], token=sys.argv[3], name='bench-dialin', game=sys.argv[4])"
)


def _think_ms(comment: str) -> float:
    return int(comment[2:]) / 1e6 if comment.startswith("t=") else 0.0


def _timed_calls(client, request: bytes, calls: int) -> float:  # noqa: ANN001 - BotClient
    for _ in range(100):  # warm-up
        client.act(request, 5.0)
    think = 0.0
    t0 = time.perf_counter()
    for _ in range(calls):
        think += _think_ms(client.act(request, 5.0).comment)
    return ((time.perf_counter() - t0) * 1000 - think) / calls


def _spawn(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure(request: bot_pb2.ActRequest, game: str, calls: int = 2000, rounds: int = 3) -> dict[str, float]:
    """Median per-call ms of both routes over alternating rounds, and their ratio."""
    import grpc

    from arena import dialin
    from arena.db.session import DATABASE_ENV
    from arena.server.accounts import register_user
    from arena.server.app import start_server
    from arena.server.config import ServerConfig
    from referee.bot_client import BotClient

    payload = request.SerializeToString()
    tmp = Path(tempfile.mkdtemp(prefix="bench-dialin-"))
    saved = os.environ.get(DATABASE_ENV)
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    server = start_server(ServerConfig(data_dir=tmp / "data", sandbox=False), "127.0.0.1:0")
    procs: list[subprocess.Popen] = []
    clients: list[BotClient] = []
    try:
        user, token = register_user("bench")
        port = _free_port()
        procs.append(_spawn([sys.executable, str(BENCH_BOT / "bot.py"), "--port", str(port)]))
        procs.append(_spawn([sys.executable, "-c", _DIAL, str(BENCH_BOT / "bot.py"), server.address, token, game]))
        grpc.channel_ready_future(grpc.insecure_channel(f"127.0.0.1:{port}")).result(timeout=30)
        bare = BotClient(f"127.0.0.1:{port}", None)
        dial = BotClient(dialin.source(user.name, game, "bench-dialin"), None)
        clients += [bare, dial]
        start = bot_pb2.MatchStart(protocol_version=1, match_id="bench", game=game, players=2)
        bare.start_match(start, 30.0)
        dial.start_match(start, 30.0)  # waits for the bot to connect (the relay's grace period)
        bares, dials = [], []
        for _ in range(rounds):
            bares.append(_timed_calls(bare, payload, calls // rounds))
            dials.append(_timed_calls(dial, payload, calls // rounds))
    finally:
        for client in clients:
            client.close()
        for proc in procs:
            proc.kill()
            proc.wait(5)
        server.stop(grace=0)
        if saved is None:
            os.environ.pop(DATABASE_ENV, None)
        else:
            os.environ[DATABASE_ENV] = saved
    bare_ms, dial_ms = statistics.median(bares), statistics.median(dials)
    return {
        "bare_grpc_call_tcp_ms": round(bare_ms, 4),
        "dialin_call_ms": round(dial_ms, 4),
        "dialin_ratio": round(dial_ms / bare_ms, 3),
        "calls": calls,
    }


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
