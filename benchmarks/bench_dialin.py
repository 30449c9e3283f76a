"""The dial-in path's cost per decision against a bare gRPC call to the same bot.

Both sides run the benchmark bot's ``act`` (``bench_bot/bot.py``) in a process of its own:

* bare: the bot listens on 127.0.0.1 (a remote bot) and the referee's :class:`BotClient` calls
  ``Act`` on it directly — one gRPC round trip;
* dial-in: the bot dials in to an Arena server (``ConnectBot``) and the referee's client reaches
  it through the server's relay — the route a worker takes (referee/dialin_client.py): a message on the
  seat's relay stream to the server, a message down the bot's stream, the answer up it, the
  reply back.

The server runs in a process of its own, as it does for a worker (``server="process"``: the
headline figure); ``server="in-process"`` puts it in the referee's process, as a server without
a broker plays its own matches (then the relay's event loop and the referee share one GIL).
The bot reports its think time in the comment; it is subtracted on both sides.

Besides wall time per call, the CPU time every process of the benchmark spent per call (this
one, the server's, both bots'; read from /proc) gives ``dialin_cpu_ratio``: on a machine
shared with other work, wall time mostly measures the scheduler, CPU time the route's cost.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee._proto import bot_pb2

BENCH_BOT = Path(__file__).resolve().parent / "bench_bot"
ROOT = Path(__file__).resolve().parent.parent
_DIAL = (
    "import runpy, sys; from arena.sdk import connect_bot; "
    "act = runpy.run_path(sys.argv[1])['act']; "
    "connect_bot(act, server=sys.argv[2], token=sys.argv[3], name='bench-dialin', game=sys.argv[4])"
)

_SERVE = (
    "import sys; from pathlib import Path; from arena.server.app import serve; "
    "from arena.server.config import ServerConfig; "
    "serve(int(sys.argv[1]), '127.0.0.1', ServerConfig(data_dir=Path(sys.argv[2]), sandbox=False))"
)


def _think_ms(comment: str) -> float:
    return int(comment[2:]) / 1e6 if comment.startswith("t=") else 0.0


def _cpu_s(pids: list[int]) -> float | None:
    """CPU seconds (user + system) of this process and of ``pids``; None without /proc."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _timed_calls(client, request: bytes, calls: int, pids: list[int]) -> tuple[float, float | None]:  # noqa: ANN001 - BotClient
    """Wall ms per call less the bot's think time, and CPU ms per call of every process."""
    for _ in range(100):  # warm-up
        client.act(request, 5.0)
    think = 0.0
    cpu0 = _cpu_s(pids)
    t0 = time.perf_counter()
    for _ in range(calls):
        think += _think_ms(client.act(request, 5.0).comment)
    wall = ((time.perf_counter() - t0) * 1000 - think) / calls
    cpu1 = _cpu_s(pids)
    cpu = None if cpu0 is None or cpu1 is None else ((cpu1 - cpu0) * 1000 - think) / calls
    return wall, cpu


def _spawn(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure(request: bot_pb2.ActRequest, game: str, calls: int = 2000, rounds: int = 3,
            server: str = "process") -> dict[str, float | str]:
    """Median per-call ms (wall and CPU) of both routes over alternating rounds, and their
    ratios."""
    import secrets

    import grpc

    from arena.db.session import DATABASE_ENV
    from arena.server.accounts import register_user
    from arena.server.app import start_server
    from arena.server.config import ServerConfig
    from referee import dialin_client
    from referee.bot_client import BotClient

    if server not in ("process", "in-process"):
        raise ValueError(f"server must be 'process' or 'in-process', not {server!r}")
    payload = request.SerializeToString()
    tmp = Path(tempfile.mkdtemp(prefix="bench-dialin-"))
    saved = {name: os.environ.get(name) for name in (DATABASE_ENV, dialin_client.RELAY_ENV, dialin_client.RELAY_KEY_ENV)}
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ[dialin_client.RELAY_KEY_ENV] = secrets.token_urlsafe(24)  # the server's and the referee's
    procs: list[subprocess.Popen] = []
    clients: list[BotClient] = []
    running = None
    try:
        if server == "process":
            address = f"127.0.0.1:{_free_port()}"
            procs.append(_spawn([sys.executable, "-c", _SERVE, address.split(":")[1], str(tmp / "data")]))
            grpc.channel_ready_future(grpc.insecure_channel(address)).result(timeout=60)
            os.environ[dialin_client.RELAY_ENV] = address
        else:
            os.environ.pop(dialin_client.RELAY_ENV, None)
            running = start_server(ServerConfig(data_dir=tmp / "data", sandbox=False), "127.0.0.1:0")
            address = running.address
        user, token = register_user("bench")
        port = _free_port()
        procs.append(_spawn([sys.executable, str(BENCH_BOT / "bot.py"), "--port", str(port)]))
        procs.append(_spawn([sys.executable, "-c", _DIAL, str(BENCH_BOT / "bot.py"), address, token, game]))
        grpc.channel_ready_future(grpc.insecure_channel(f"127.0.0.1:{port}")).result(timeout=30)
        bare = BotClient(f"127.0.0.1:{port}", None)
        dial = BotClient(dialin_client.source(user.name, game, "bench-dialin"), None)
        clients += [bare, dial]
        start = bot_pb2.MatchStart(protocol_version=1, match_id="bench", game=game, players=2)
        bare.start_match(start, 30.0)
        dial.start_match(start, 30.0)  # waits for the bot to connect (the relay's grace period)
        # Its first connection qualifies it with a match over the same stream: timing during
        # that match would count its calls too (and a match left running would write to the
        # database after the environment is restored).
        _wait_qualified("bench-dialin", game)
        bares, dials = [], []
        pids = [proc.pid for proc in procs]
        for _ in range(rounds):
            bares.append(_timed_calls(bare, payload, calls // rounds, pids))
            dials.append(_timed_calls(dial, payload, calls // rounds, pids))
    finally:
        for client in clients:
            client.close()
        for proc in procs:
            proc.kill()
            proc.wait(5)
        if running is not None:
            running.stop(grace=0)
            if running.ticker is not None:  # a tick after the restore would open the default database
                running.ticker.join(10)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    bare_ms, dial_ms = statistics.median(w for w, _ in bares), statistics.median(w for w, _ in dials)
    out: dict[str, float | str] = {
        "bare_grpc_call_tcp_ms": round(bare_ms, 4),
        "dialin_call_ms": round(dial_ms, 4),
        "dialin_ratio": round(dial_ms / bare_ms, 3),
    }
    if all(c is not None for _, c in bares + dials):
        bare_cpu, dial_cpu = statistics.median(c for _, c in bares), statistics.median(c for _, c in dials)
        out |= {"bare_cpu_ms": round(bare_cpu, 4), "dialin_cpu_ms": round(dial_cpu, 4),
                "dialin_cpu_ratio": round(dial_cpu / bare_cpu, 3)}
    return {**out, "calls": calls, "server": server}


def _wait_qualified(name: str, game: str, timeout_s: float = 300.0) -> None:
    """Until the bot's latest submission is no longer qualifying (active or refused alike)."""
    from sqlalchemy import select

    from arena.db import Bot, session_scope
    from arena.db.accounts import QUALIFYING, Submission

    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        with session_scope() as s:
            bot = s.scalar(select(Bot).where(Bot.name == name, Bot.game == game))
            sub = None if bot is None else s.scalar(
                select(Submission).where(Submission.bot_id == bot.id).order_by(Submission.number.desc()).limit(1))
            if sub is not None and sub.status != QUALIFYING:
                return
        time.sleep(0.2)
    raise RuntimeError(f"the dial-in bot's qualification did not end within {timeout_s:.0f} s")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    # The dial-in lines of `arena bench referee` alone (that command needs bubblewrap for its
    # sandboxed part): python -m benchmarks.bench_dialin [CALLS]
    from benchmarks.act_requests import sample_request

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for where in ("process", "in-process"):
        print(f"dialin ({where:<10}) {measure(sample_request('solenia'), 'solenia', calls=n, server=where)}")
