"""What the gRPC shortcuts (docs/shortcuts.md) buy: the same figures with every shortcut on and
with all of them off, measured in one run, in alternating rounds.

``ARENA_SHORTCUTS`` is switched between ``on`` and ``off`` round by round (the referee decides
per stream it opens, and every process the benchmark starts inherits the setting: a sandboxed
bot too), so both sides see the same machine noise. Figures, per setting:

* referee overhead per decision against a bare ``Act`` call to sandboxed bots on their Unix
  socket (:mod:`benchmarks.bench_referee`): the hosted bots' server is the SDK's, so the
  ``cygrpc_server`` shortcut is on one side of the round trip;
* a bare ``Act`` call to a remote bot over TCP (the SDK's server in a process of its own) and
  the CPU per call of this process and the bot's: ``cygrpc_server`` alone;
* a dial-in call (:mod:`benchmarks.bench_dialin`: referee → relay stream → Arena server in its
  own process → the bot's ConnectBot stream and back) and its CPU: ``cygrpc_stream`` alone, on
  both streams (the referee's relay stream and the bot's). The Arena server is one process for
  both settings (with this process's own ``ARENA_SHORTCUTS``): it uses no gRPC shortcut.

A shortcut's *gain* is ``(off − on) / off`` of its figure: the share of the figure the private
path saves. Under 5 % the shortcut is not worth its risk (issue #29).

    arena bench shortcuts [--decisions N] [--rounds R]
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_dialin import BENCH_BOT, ROOT, _free_port, _timed_calls, _wait_qualified
from referee import shortcuts

SETTINGS = ("on", "off")
_DIAL = (
    "import runpy, sys; from arena.sdk import connect_bot; "
    "act = runpy.run_path(sys.argv[1])['act']; "
    "connect_bot(act, server=sys.argv[2], token=sys.argv[3], name=sys.argv[5], game=sys.argv[4])"
)
_SERVE = (
    "import sys; from pathlib import Path; from arena.server.app import serve; "
    "from arena.server.config import ServerConfig; "
    "serve(int(sys.argv[1]), '127.0.0.1', ServerConfig(data_dir=Path(sys.argv[2]), sandbox=False))"
)


@contextlib.contextmanager
def setting(value: str) -> Iterator[None]:
    """``ARENA_SHORTCUTS=value`` in this process (and the processes it starts) meanwhile."""
    saved = os.environ.get(shortcuts.ENV)
    os.environ[shortcuts.ENV] = value
    shortcuts.reset_cache()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(shortcuts.ENV, None)
        else:
            os.environ[shortcuts.ENV] = saved
        shortcuts.reset_cache()


def _order(round_no: int) -> tuple[str, ...]:
    """on, off then off, on: neither side always runs first (caches, a warming CPU)."""
    return SETTINGS if round_no % 2 == 0 else SETTINGS[::-1]


def _gain(on: float, off: float) -> float:
    return round((off - on) / off, 3)


def _match_with_cpu(game: str, decisions: int) -> tuple[float, float]:
    """:func:`benchmarks.bench_referee.measure_match` (wall overhead per decision) and the CPU
    per decision of the referee's process and the bots (their own CPU, as the referee's fair
    clock reads it), less the bots' think time."""
    from benchmarks.bench_referee import _think_ms, time_engine
    from referee.match import MatchConfig, SeatSpec, run_match

    loop_ms = think_ms = engine_ms = bot_cpu_ms = 0.0
    made = matches = 0
    cpu0 = time.process_time()
    while made < decisions:
        marks: dict[str, float] = {}

        def on_event(event: dict, marks: dict[str, float] = marks) -> None:
            if event["type"] == "ready":
                marks["ready"] = time.perf_counter()
            elif event["type"] == "decision":
                marks["last"] = time.perf_counter()

        seats = [SeatSpec(f"b{i}", str(BENCH_BOT)) for i in range(2)]
        record = run_match(MatchConfig(game, seats, seed=1 + matches), on_event=on_event)
        if record.forfeits:
            raise RuntimeError(f"benchmark bot forfeited: {record.forfeits}")
        loop_ms += (marks["last"] - marks["ready"]) * 1000
        think_ms += sum(_think_ms(d.comment) for d in record.decisions)
        bot_cpu_ms += sum(d.cpu_ms or 0.0 for d in record.decisions)
        engine_ms += time_engine(record)
        made += len(record.decisions)
        matches += 1
    referee_cpu_ms = (time.process_time() - cpu0) * 1000 - engine_ms  # time_engine ran here too
    return (loop_ms - think_ms) / made, (referee_cpu_ms + bot_cpu_ms - think_ms) / made


def measure_referee(decisions: int, rounds: int) -> dict[str, Any]:
    """Referee overhead per decision (wall, and CPU of the referee and the bots) and the bare
    call, hosted sandboxed bots, both settings."""
    from benchmarks.act_requests import sample_request
    from benchmarks.bench_referee import BenchCounterState, measure_bare_call
    from referee import registry

    per_round = max(200, decisions // rounds)
    BenchCounterState.length = per_round
    registry.register(BenchCounterState)
    request = sample_request("bench_counter")
    bare: dict[str, list[float]] = {s: [] for s in SETTINGS}
    alternating: dict[str, list[float]] = {s: [] for s in SETTINGS}
    over: dict[str, list[tuple[float, float]]] = {s: [] for s in SETTINGS}
    for s in SETTINGS:  # warm-up: caches, code paths, the sandbox's first start
        with setting(s):
            measure_bare_call(200, request)
    for r in range(rounds):
        for s in _order(r):
            with setting(s):
                bare[s].append(measure_bare_call(per_round, request))
                alternating[s].append(measure_bare_call(per_round, request, bots=2))
                over[s].append(_match_with_cpu("bench_counter", per_round))
    out: dict[str, Any] = {}
    for s in SETTINGS:
        b = statistics.median(bare[s])
        o = statistics.median(w for w, _ in over[s])
        c = statistics.median(c for _, c in over[s])
        out[s] = {
            "bare_grpc_call_ms": round(b, 4),
            "referee_overhead_per_decision_ms": round(o, 4),
            "overhead_ratio": round(o / b, 3),
            "bare_call_alternating_two_bots_ms": round(statistics.median(alternating[s]), 4),
            "cpu_per_decision_ms": round(c, 4),
            "rounds_overhead_ms": [round(w, 3) for w, _ in over[s]],
        }
    on, off = out["on"], out["off"]
    out["gain_bare_call"] = _gain(on["bare_grpc_call_ms"], off["bare_grpc_call_ms"])
    out["gain_bare_call_alternating"] = _gain(
        on["bare_call_alternating_two_bots_ms"], off["bare_call_alternating_two_bots_ms"]
    )
    out["gain_overhead_per_decision"] = _gain(
        on["referee_overhead_per_decision_ms"], off["referee_overhead_per_decision_ms"]
    )
    out["gain_cpu_per_decision"] = _gain(on["cpu_per_decision_ms"], off["cpu_per_decision_ms"])
    out["decisions_per_setting"] = per_round * rounds
    return out


def _spawn(args: list[str], value: str | None) -> subprocess.Popen:
    """A process of the benchmark, with ``ARENA_SHORTCUTS=value`` (None: this process's own)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if value is not None:
        env[shortcuts.ENV] = value
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure_dialin(calls: int, rounds: int, game: str = "solenia") -> dict[str, Any]:
    """A bare call to a remote bot (TCP) and a dial-in call through a relay in its own process,
    with the bots and the referee's streams on each setting; wall and CPU ms per call."""
    import secrets

    import grpc

    from arena.db.session import DATABASE_ENV
    from arena.server.accounts import register_user
    from benchmarks.act_requests import sample_request
    from referee import dialin_client
    from referee._proto import bot_pb2
    from referee.bot_client import BotClient

    payload = sample_request(game).SerializeToString()
    tmp = Path(tempfile.mkdtemp(prefix="bench-shortcuts-"))
    names = (DATABASE_ENV, dialin_client.RELAY_ENV, dialin_client.RELAY_KEY_ENV)
    saved = {name: os.environ.get(name) for name in names}
    os.environ[DATABASE_ENV] = f"sqlite:///{tmp / 'arena.sqlite3'}"
    os.environ[dialin_client.RELAY_KEY_ENV] = secrets.token_urlsafe(24)
    procs: list[subprocess.Popen] = []
    clients: list[BotClient] = []
    bare: dict[str, list[tuple[float, float | None]]] = {s: [] for s in SETTINGS}
    dial: dict[str, list[tuple[float, float | None]]] = {s: [] for s in SETTINGS}
    try:
        address = f"127.0.0.1:{_free_port()}"
        server = _spawn(
            [sys.executable, "-c", _SERVE, address.split(":")[1], str(tmp / "data")], None
        )
        procs.append(server)
        grpc.channel_ready_future(grpc.insecure_channel(address)).result(timeout=60)
        os.environ[dialin_client.RELAY_ENV] = address
        user, token = register_user("bench")
        routes: dict[str, tuple[BotClient, BotClient, int, int]] = {}
        start = bot_pb2.MatchStart(protocol_version=1, match_id="bench", game=game, players=2)
        for s in SETTINGS:
            port = _free_port()
            bare_bot = _spawn([sys.executable, str(BENCH_BOT / "bot.py"), "--port", str(port)], s)
            dial_bot = _spawn(
                [
                    sys.executable,
                    "-c",
                    _DIAL,
                    str(BENCH_BOT / "bot.py"),
                    address,
                    token,
                    game,
                    f"bench-{s}",
                ],
                s,
            )
            procs += [bare_bot, dial_bot]
            grpc.channel_ready_future(grpc.insecure_channel(f"127.0.0.1:{port}")).result(timeout=30)
            with setting(s):  # the referee's relay stream is chosen as the seat opens it
                bare_client = BotClient(f"127.0.0.1:{port}", None)
                dial_client = BotClient(dialin_client.source(user.name, game, f"bench-{s}"), None)
                clients += [bare_client, dial_client]
                bare_client.start_match(start, 30.0)
                dial_client.start_match(start, 30.0)
            routes[s] = (bare_client, dial_client, bare_bot.pid, dial_bot.pid)
        for s in SETTINGS:
            _wait_qualified(f"bench-{s}", game)
        per_round = max(100, calls // rounds)
        for r in range(rounds):
            for s in _order(r):
                bare_client, dial_client, bare_pid, dial_pid = routes[s]
                bare[s].append(_timed_calls(bare_client, payload, per_round, [bare_pid]))
                dial[s].append(
                    _timed_calls(dial_client, payload, per_round, [server.pid, dial_pid])
                )
    finally:
        for client in clients:
            client.close()
        for proc in procs:
            proc.kill()
            proc.wait(5)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    out: dict[str, Any] = {}
    for s in SETTINGS:
        row: dict[str, Any] = {}
        for label, samples in (("bare_call_tcp", bare[s]), ("dialin_call", dial[s])):
            row[f"{label}_ms"] = round(statistics.median(w for w, _ in samples), 4)
            if all(c is not None for _, c in samples):
                row[f"{label}_cpu_ms"] = round(statistics.median(c for _, c in samples), 4)
        row["dialin_ratio"] = round(row["dialin_call_ms"] / row["bare_call_tcp_ms"], 3)
        row["rounds_dialin_ms"] = [round(w, 3) for w, _ in dial[s]]
        out[s] = row
    on, off = out["on"], out["off"]
    out["gain_bare_call_tcp"] = _gain(on["bare_call_tcp_ms"], off["bare_call_tcp_ms"])
    out["gain_dialin_call"] = _gain(on["dialin_call_ms"], off["dialin_call_ms"])
    if "dialin_call_cpu_ms" in on and "dialin_call_cpu_ms" in off:
        out["gain_bare_call_tcp_cpu"] = _gain(
            on["bare_call_tcp_cpu_ms"], off["bare_call_tcp_cpu_ms"]
        )
        out["gain_dialin_call_cpu"] = _gain(on["dialin_call_cpu_ms"], off["dialin_call_cpu_ms"])
    out["calls_per_setting"] = per_round * rounds
    return out


def bench(decisions: int = 1200, rounds: int = 4, sandboxed: bool = True) -> dict[str, Any]:
    """Every gRPC shortcut's figures with all shortcuts on and all off (one run). Without
    bubblewrap (``sandboxed=False``) the referee-overhead lines are left out."""
    t0 = time.monotonic()
    out: dict[str, Any] = {"grpcio": shortcuts.installed_version("grpcio") or "not installed"}
    for name, shortcut in sorted(shortcuts.registered().items()):
        if shortcut.package == "grpcio":
            out[f"tested_{name}"] = ", ".join(shortcut.tested)
    if sandboxed:
        out["referee"] = measure_referee(decisions, rounds)
    out["dialin"] = measure_dialin(decisions, rounds)
    out["seconds"] = round(time.monotonic() - t0, 1)
    return out


if __name__ == "__main__":
    import arena.sdk.bot_server  # noqa: F401 - registers cygrpc_server
    import referee.direct_stream  # noqa: F401 - registers cygrpc_stream

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1200
    for key, value in bench(n).items():
        print(f"{key:<28} {value}")
