"""Tournament throughput, rating speed and scheduler speed (``arena bench tournament``).

* matches per minute with random bots on one and on two ``arena worker`` processes (real Redis
  from ``ARENA_BENCH_REDIS``, default redis://127.0.0.1:6379/12, and a throw-away SQLite file),
  and their ratio — the goal is ≥ 1.8 on 2 cores. Without Redis the same is measured with the
  in-process pool (1 and 2 matches at once) and ``mode`` says so.
* TrueSkill updates per second for a 4-seat free-for-all: the bare update, and the full
  recording transaction (result + ratings + history, per-game lock) on SQLite.
* the scheduler's time to plan a 12-bot, 4-seat round-robin.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot")


def _pick_game() -> str:
    from referee import registry

    for game in ("black_angel", "solenia"):
        try:
            registry.get_spec(game)
            return game
        except ImportError:
            continue
    raise RuntimeError("no game engine available to benchmark")


def _redis_url() -> str | None:
    url = os.environ.get("ARENA_BENCH_REDIS", "redis://127.0.0.1:6379/12")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return url
    except Exception:  # noqa: BLE001
        return None


def _matches_per_minute(game: str, workers: int, broker: str | None, bots: int, rounds: int) -> float:
    """Run one round-robin in a fresh database in a child process; matches per minute."""
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    env = dict(os.environ)
    env.pop("ARENA_BROKER_URL", None)
    env["ARENA_DATABASE_URL"] = f"sqlite:///{folder / 'arena.sqlite3'}"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    procs: list[subprocess.Popen] = []
    if broker:
        env["ARENA_BROKER_URL"] = broker
        env["ARENA_QUEUE"] = f"arena-bench-{os.getpid()}-{workers}"  # never another run's tasks
        procs = [
            subprocess.Popen([sys.executable, "-m", "arena", "worker", "--loglevel", "warning"],
                             env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(workers)
        ]
    sandbox = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
    cmd = [sys.executable, "-m", "arena", "tournament", game, "-k", "2", "-r", str(rounds),
           *[f"--bot=r{i}={RANDOM_BOT}" for i in range(bots)], *sandbox]
    if not broker:
        cmd += ["--workers", str(workers)]
    try:
        if broker:
            _wait_for_workers(env, workers)
        subprocess.run(cmd, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        elapsed = _playing_seconds(folder / "arena.sqlite3")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    total = bots * (bots - 1) * rounds
    return total / elapsed * 60


def _playing_seconds(db: Path) -> float:
    """From the first match start to the last result: the workers' time, not the CLI's start-up."""
    import sqlite3
    from datetime import datetime

    with sqlite3.connect(db) as conn:
        first, last = conn.execute("SELECT min(started_at), max(finished_at) FROM matches").fetchone()
    return (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()


def _wait_for_workers(env: dict[str, str], n: int) -> None:
    code = ("from arena.celery_app import app; import sys; "
            f"sys.exit(0 if len(app.control.ping(timeout=1.0)) >= {n} else 1)")
    for _ in range(60):
        if subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT).returncode == 0:
            return
        time.sleep(0.5)
    raise RuntimeError("workers did not come up")


def _rating_updates_per_second(seconds: float = 2.0) -> float:
    from arena.ratings import Skill, rate

    rng = random.Random(1)
    skills = [Skill(25.0, 25 / 3) for _ in range(12)]
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seats = rng.sample(range(12), 4)
        ranks = [rng.randint(1, 4) for _ in seats]
        for i, new in zip(seats, rate("bench", [skills[i] for i in seats], ranks), strict=True):
            skills[i] = new
        n += 1
    return n / (time.perf_counter() - start)


def _recorded_updates_per_second(count: int = 300) -> float:
    """Result + ratings + history in one locked transaction, SQLite, 4-seat FFA."""
    from arena import bots, recording
    from arena.db import dispose_all, session_scope

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    old = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{folder / 'arena.sqlite3'}"
    dispose_all()
    try:
        rng = random.Random(2)
        with session_scope() as s:
            ids = []
            for i in range(12):
                bot = folder / f"b{i}"
                bot.mkdir()
                (bot / "bot.py").write_text(f"# {i}\n")
                ids.append(bots.register_version(s, "solenia", str(bot), name=f"b{i}").id)
            mids = [recording.create_match(s, "solenia", "summer", rng.sample(ids, 4), seed=j).id
                    for j in range(count)]
        start = time.perf_counter()
        for mid in mids:
            ranks = [rng.randint(1, 4) for _ in range(4)]
            with session_scope() as s:
                recording.record_result(s, mid, {"result": {"scores": [0] * 4, "ranks": ranks}})
        return count / (time.perf_counter() - start)
    finally:
        dispose_all()
        if old is None:
            os.environ.pop("ARENA_DATABASE_URL", None)
        else:
            os.environ["ARENA_DATABASE_URL"] = old
        shutil.rmtree(folder, ignore_errors=True)


def _platform_overhead_ms(game: str, count: int = 10) -> float:
    """Per match, the time spent outside the match runner by ``play_match``: claim, loading
    the seats, the lease heartbeat, recording and rating (SQLite, in-process)."""
    return _platform_overhead(game, count)[0]


def _platform_overhead(game: str, count: int = 10) -> tuple[float, float]:
    """(wall ms, CPU ms of the calling thread) per match outside the runner; the CPU figure is what
    a loaded machine cannot inflate by making the process wait for a core."""
    import referee.match as runner_module
    from arena import bots, recording, tasks
    from arena.db import dispose_all, session_scope

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    old_url = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{folder / 'arena.sqlite3'}"
    dispose_all()
    real = runner_module.run_match
    in_runner = in_runner_cpu = 0.0

    def timed(config, on_event=None, on_view=None):  # noqa: ANN001, ANN202
        nonlocal in_runner, in_runner_cpu
        start, start_cpu = time.perf_counter(), time.thread_time()
        try:
            return real(config, on_event, on_view)
        finally:
            in_runner += time.perf_counter() - start
            in_runner_cpu += time.thread_time() - start_cpu

    runner_module.run_match = timed
    try:
        with session_scope() as s:
            ids = [bots.register_version(s, game, RANDOM_BOT, name=f"r{i}").id for i in range(2)]
            sandbox = shutil.which("bwrap") is not None
            mids = [recording.create_match(s, game, _variant(game), ids, seed=i,
                                           sandbox=sandbox).id for i in range(count)]
        start, start_cpu = time.perf_counter(), time.thread_time()
        for mid in mids:
            tasks.play_match_now(mid)
        total, total_cpu = time.perf_counter() - start, time.thread_time() - start_cpu
        return (total - in_runner) / count * 1000, (total_cpu - in_runner_cpu) / count * 1000
    finally:
        runner_module.run_match = real
        dispose_all()
        if old_url is None:
            os.environ.pop("ARENA_DATABASE_URL", None)
        else:
            os.environ["ARENA_DATABASE_URL"] = old_url
        shutil.rmtree(folder, ignore_errors=True)


def _overhead_figures(game: str) -> dict:
    wall, cpu = _platform_overhead(game, 20)
    return {
        "platform_overhead_ms_per_match": round(wall, 1),
        "platform_overhead_cpu_ms_per_match": round(cpu, 1),
        "goal_overhead_at_most_5ms": wall <= 5.0,
    }


def _variant(game: str) -> str:
    from referee import registry

    return registry.get_spec(game).check(2, None)


def _schedule_ms(runs: int = 5) -> float:
    from arena.schedule import round_robin

    start = time.perf_counter()
    for seed in range(runs):
        round_robin(12, 4, 1, seed)
    return (time.perf_counter() - start) / runs * 1000


def bench(bots: int = 4, rounds: int = 12, repeats: int = 3) -> dict:
    """``repeats`` interleaved runs of one and two workers; medians are reported, since one
    run of a few dozen matches moves by ±20 % with whatever else the machine does."""
    load = os.getloadavg()[0]  # other work on the machine skews the worker figures
    game = _pick_game()
    broker = _redis_url()
    ones, twos = [], []
    for _ in range(repeats):
        ones.append(_matches_per_minute(game, 1, broker, bots, rounds))
        twos.append(_matches_per_minute(game, 2, broker, bots, rounds))
    one, two = statistics.median(ones), statistics.median(twos)
    return {
        "load_average_at_start": round(load, 2),
        "mode": "redis + arena worker processes" if broker else "in-process pool (no Redis)",
        "game": f"{game}, 2 seats, random bots, {bots * (bots - 1) * rounds} matches per run",
        "cores": os.cpu_count(),
        "matches_per_minute_1_worker": round(one, 1),
        "matches_per_minute_2_workers": round(two, 1),
        "speedup_2_vs_1": round(two / one, 2),
        "runs_1_worker": [round(x, 1) for x in ones],
        "runs_2_workers": [round(x, 1) for x in twos],
        **_overhead_figures(game),
        "trueskill_updates_per_s_4_seat": round(_rating_updates_per_second(), 1),
        "recorded_updates_per_s_4_seat_sqlite": round(_recorded_updates_per_second(), 1),
        "schedule_12_bots_4_seats_ms": round(_schedule_ms(), 2),
    }


if __name__ == "__main__":
    for key, value in bench().items():
        print(f"{key:<40} {value}")
