"""What idle ``ConnectBot`` streams cost the Arena server: threads, memory, open files.

Set-up: a fresh SQLite database with ``accounts`` users, each owning ``streams / accounts``
dial-in bots of Solenia that already qualified (rows written before the server starts, so no
qualification match runs and the figures are the streams' alone); an Arena server in a process
of its own (``arena.server.app.serve``, no broker), so its threads, resident memory and open
file descriptors can be read from /proc; then ``streams`` bots dial in, each on a TCP connection
of its own (a ``grpc.aio`` channel per bot, all on one thread of this process: the client side
costs no threads), say hello, are welcomed, and stay idle.

Printed: the server's threads, RSS (KiB), open fds and sockets before any stream, with every
stream open and idle, and after they closed; the cost per stream (the difference divided by
``streams``); how long opening them all took; ``WhoAmI`` latency beside the open streams; and
the server's CPU use over 10 s while the streams idle (its heartbeat and its watch over the
connected bots).
The server is started with caps wide enough for the run (``ARENA_DIALIN_*`` settings), so the
same script measures a build with or without the dial-in caps.

    python -m benchmarks.bench_dialin_streams [STREAMS] [ACCOUNTS]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GAME = "solenia"
ROOT = Path(__file__).resolve().parent.parent
_SERVE = (
    "import logging, sys; from pathlib import Path; from arena.server.app import serve; "
    "from arena.server.config import ServerConfig; logging.basicConfig(level=logging.WARNING); "
    "serve(int(sys.argv[1]), '127.0.0.1', ServerConfig(data_dir=Path(sys.argv[2]), sandbox=False))"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_figures(pid: int) -> dict[str, int]:
    """Threads, resident memory (KiB), open file descriptors and sockets of process ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status if ":" in line)
    fds = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            fds.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:  # closed meanwhile
            pass
    return {
        "threads": int(fields["Threads"].strip()),
        "rss_kib": int(fields["VmRSS"].split()[0]),
        "fds": len(fds),
        "sockets": sum(1 for f in fds if f.startswith("socket:")),
    }


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def seed(url: str, accounts: int, per_account: int) -> list[tuple[str, list[str]]]:
    """Users with qualified dial-in bots; returns (token, bot names) per user."""
    from arena.db import Bot, init_db, session_scope
    from arena.db.accounts import QUALIFIED, Submission
    from arena.intake.bots import register_version
    from arena.server.accounts import register_user
    from referee.dialin_client import source

    init_db(url)
    made = []
    for a in range(accounts):
        user, token = register_user(f"idle{a}", url)
        names = [f"idle{a}-bot{i}" for i in range(per_account)]
        with session_scope(url) as s:
            for name in names:
                src = source(user.name, GAME, name)
                s.add(Bot(owner=user.name, name=name, game=GAME, active=True))
                s.flush()
                version = register_version(s, GAME, src, name=name, owner=user.name)
                bot = s.get(Bot, version.bot_id)
                s.add(Submission(bot_id=bot.id, number=version.number, kind="remote", source=src,
                                 digest=hashlib.sha256(src.encode()).hexdigest(), status=QUALIFIED,
                                 bot_version_id=version.id))
        made.append((token, names))
    return made


async def _open_streams(address: str, bots: list[tuple[str, str]]) -> tuple[list[Any], list[Any], list[str]]:
    import grpc

    from referee._proto import arena_pb2 as pb

    channels, calls, errors = [], [], []

    async def one(token: str, name: str) -> None:
        channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        channels.append(channel)
        call = channel.stream_stream("/tabletop.arena.v1.Arena/ConnectBot",
                                     request_serializer=pb.ConnectBotRequest.SerializeToString,
                                     response_deserializer=pb.ConnectBotResponse.FromString)(
            metadata=(("authorization", f"Bearer {token}"),))
        await call.write(pb.ConnectBotRequest(hello=pb.ConnectBotHello(name=name, game=GAME)))
        try:
            first = await asyncio.wait_for(call.read(), 60)
        except Exception as exc:  # noqa: BLE001 - counted, not fatal to the run
            errors.append(f"{type(exc).__name__}: {exc}"[:200])
            return
        if first is grpc.aio.EOF or first.WhichOneof("message") != "welcome":
            errors.append(f"{name}: no welcome ({await call.code()}: {await call.details()})")
            return
        calls.append(call)

    await asyncio.gather(*(one(token, name) for token, name in bots))
    return channels, calls, errors


def _latency(address: str, token: str, calls: int = 200) -> dict[str, float]:
    import grpc

    from referee._proto import arena_pb2 as pb
    from referee._proto import arena_pb2_grpc

    channel = grpc.insecure_channel(address)
    try:
        stub = arena_pb2_grpc.ArenaStub(channel)
        meta = (("authorization", f"Bearer {token}"),)
        stub.WhoAmI(pb.WhoAmIRequest(), metadata=meta, timeout=10)
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            stub.WhoAmI(pb.WhoAmIRequest(), metadata=meta, timeout=10)
            times.append(time.perf_counter() - t0)
    finally:
        channel.close()
    times.sort()
    return {"p50_ms": round(statistics.median(times) * 1000, 2), "p99_ms": round(times[int(len(times) * 0.99)] * 1000, 2)}


def bench(streams: int = 300, accounts: int = 15) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench-dialin-streams-"))
    url = f"sqlite:///{tmp / 'arena.sqlite3'}"
    per_account = -(-streams // accounts)
    made = seed(url, accounts, per_account)
    bots = [(token, name) for token, names in made for name in names][:streams]
    port = _free_port()
    env = dict(os.environ, ARENA_DATABASE_URL=url, ARENA_SANDBOX="0",
               PYTHONPATH=os.environ.get("PYTHONPATH") or str(ROOT),
               ARENA_DIALIN_STREAMS=str(streams + 100), ARENA_DIALIN_STREAMS_PER_ACCOUNT=str(per_account + 10),
               ARENA_DIALIN_STREAMS_PER_CLIENT=str(streams + 100))
    env.pop("ARENA_BROKER_URL", None)
    server = subprocess.Popen([sys.executable, "-c", _SERVE, str(port), str(tmp / "data")], env=env, cwd=ROOT)
    address = f"127.0.0.1:{port}"
    result: dict[str, Any] = {"streams": streams, "accounts": accounts}
    try:
        _wait_listening(port, server)
        time.sleep(1.0)
        result["server_idle"] = idle = process_figures(server.pid)
        result["whoami_no_streams"] = _latency(address, made[0][0])
        t0 = time.perf_counter()
        # The bots live in a process of their own: it holds their connections until it exits.
        load = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_dialin_streams", "--load", address],
                                env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        load.stdin.write(json.dumps(bots) + "\n")
        load.stdin.flush()
        report = json.loads(load.stdout.readline() or "{}")
        result["open_all_s"] = round(time.perf_counter() - t0, 2)
        result["welcomed"] = report.get("welcomed", 0)
        result["refused"] = report.get("errors", [])[:5]
        time.sleep(2.0)
        result["server_streams_open"] = full = process_figures(server.pid)
        result["whoami_streams_open"] = _latency(address, made[0][0])
        cpu0, t0 = _cpu_s(server.pid), time.monotonic()
        time.sleep(10.0)
        result["server_cpu_pct_idle_streams"] = round(100 * (_cpu_s(server.pid) - cpu0) / (time.monotonic() - t0), 2)
        n = max(1, result["welcomed"])
        result["per_stream"] = {key: round((full[key] - idle[key]) / n, 3) for key in idle}
        load.stdin.close()  # the load process exits: every connection closes
        load.wait(60)
        end = time.monotonic() + 30
        while process_figures(server.pid)["sockets"] > idle["sockets"] + 2 and time.monotonic() < end:
            time.sleep(0.5)
        result["server_after_close"] = process_figures(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    return result


def _wait_listening(port: int, server: subprocess.Popen) -> None:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("the server did not start listening within 60 s")


def _load(address: str) -> None:
    """The bots' process: open the streams read from stdin, report, hold them until stdin ends."""
    bots = [tuple(b) for b in json.loads(sys.stdin.readline())]
    loop = asyncio.new_event_loop()
    _channels, calls, errors = loop.run_until_complete(_open_streams(address, bots))
    print(json.dumps({"welcomed": len(calls), "errors": errors}), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--load"]:
        _load(sys.argv[2])
        sys.exit(0)
    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(bench(*args), indent=2))
