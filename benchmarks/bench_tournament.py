"""Tournament throughput, platform overhead, rating speed and scheduler speed
(``arena bench tournament``).

* matches per minute with random bots on one and on two ``arena worker`` processes (real Redis
  from ``ARENA_BENCH_REDIS``, default redis://127.0.0.1:6379/12, and a throw-away SQLite file),
  and their ratio — the goal is ≥ 1.8 on 2 cores. Two rates per run: over the whole run (from
  the first match's start to the last result), and in the steady state (:func:`_steady_rate`:
  each worker from the end of its warm-up match to the end of its last one). The ratio is taken
  on the steady state: a worker's warm-up (launching its pooled bots, ~0.6-1 s) is paid once per
  worker, so in a run of 144 matches it is ~3 % of one worker's run and ~8 % of two workers'
  — a cost of the short run, not of scaling, which a tournament of thousands of matches
  amortises. Without Redis the same is measured with the in-process pool (1 and 2 matches at
  once) and ``mode`` says so; it has no per-match lines, so only whole-run rates.
* the platform's overhead per match, measured inside those worker processes
  (``ARENA_MATCH_COSTS``, :class:`arena.workers.tasks.MatchCosts`; each worker's first match is its
  warm-up and left out): claim + configuration, leases, live
  feed, record conversion, recording and rating, and Celery between two matches — each part
  in [wall ms, CPU ms], and their sum (goal ≤ 5 ms). The runner (engine, protocol, bots) is
  reported beside it, not counted. For scaling: each worker's CPU per match with one and with
  two workers (equal when nothing serialises) and the time spent waiting for the rating lock.
  The same parts in-process (no broker) as ``in_process_*``.
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


def _matches_per_minute(
    game: str, workers: int, broker: str | None, bots: int, rounds: int
) -> tuple[float, dict | None]:
    """Run one round-robin in a fresh database in a child process: matches per minute over the
    whole run, and with worker processes the per-match costs they logged (:func:`_worker_costs`,
    with the steady-state rate as ``steady_matches_per_minute``)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    env = dict(os.environ)
    env.pop("ARENA_BROKER_URL", None)
    env["ARENA_DATABASE_URL"] = f"sqlite:///{folder / 'arena.sqlite3'}"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    procs: list[subprocess.Popen] = []
    costs = folder / "costs"
    if broker:
        env["ARENA_BROKER_URL"] = broker
        env["ARENA_QUEUE"] = f"arena-bench-{os.getpid()}-{workers}"  # never another run's tasks
        worker_env = {**env, "ARENA_MATCH_COSTS": str(costs)}
        procs = [
            subprocess.Popen([sys.executable, "-m", "arena", "worker", "--loglevel", "warning"],
                             env=worker_env, cwd=ROOT, stdout=subprocess.DEVNULL,
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
        summary = _worker_costs(costs) if broker else None
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    total = bots * (bots - 1) * rounds
    return total / elapsed * 60, summary


def _worker_costs(folder: Path) -> dict:
    """The costs the worker processes logged (``ARENA_MATCH_COSTS``): :func:`_summarise` over
    all of them, plus per worker its matches, CPU per match (the whole process from its first
    match's start to its last match's end: what it costs whatever the load) and wall per match."""
    import json

    lines = [json.loads(raw) for path in sorted(folder.glob("*.jsonl"))
             for raw in path.read_text().splitlines() if raw.strip()]
    steady = _steady_rate(lines)
    lines = _without_first_matches(lines)
    summary = _summarise(lines)
    per_worker = []
    for pid in sorted({line["pid"] for line in lines}):
        mine = sorted((line for line in lines if line["pid"] == pid), key=lambda x: x["start"])
        n = len(mine)
        per_worker.append({
            "matches": n,
            "cpu_ms_per_match": round((mine[-1]["cpu_end"] - mine[0]["cpu_start"]) / n * 1000, 2),
            "wall_ms_per_match": round((mine[-1]["end"] - mine[0]["start"]) / n * 1000, 2),
            "lock_wait_ms_per_match": round(
                sum(line["parts"].get("lock_wait", [0.0])[0] for line in mine) / n * 1000, 3),
        })
    summary["workers"] = per_worker
    summary["steady_matches_per_minute"] = steady
    return summary


def _steady_rate(lines: list[dict]) -> float | None:
    """Matches per minute with every worker warm: the sum over the worker processes of each
    one's matches after its warm-up match over the time from that match's end to its last
    match's end (it played them back to back from one queue, so that span holds exactly those
    matches). None when a worker played fewer than three matches (no steady state to speak of).

    Summing the workers' own rates is the aggregate rate while they all play, which they do
    from the moment both have warmed up (~1 s) until the queue runs dry; the whole-run rate
    beside it also counts the warm-ups and the last match's tail."""
    by_pid: dict[int, list[dict]] = {}
    for line in lines:
        by_pid.setdefault(line["pid"], []).append(line)
    rate = 0.0
    for mine in by_pid.values():
        if len(mine) < 3:
            return None
        mine.sort(key=lambda x: x["start"])
        rate += (len(mine) - 1) / (mine[-1]["end"] - mine[0]["end"]) * 60
    return round(rate, 1) if by_pid else None


def _without_first_matches(lines: list[dict]) -> list[dict]:
    """Each worker process's lines but its first match: the warm-up, as the in-process measure
    has — it imports the game engine, launches the bots' sandboxes and settles the heap
    (:func:`arena.workers.tasks._settle_heap`), once per process."""
    firsts: dict[int, dict] = {}
    for line in lines:
        first = firsts.get(line["pid"])
        if first is None or line["start"] < first["start"]:
            firsts[line["pid"]] = line
    return [line for line in lines if line is not firsts[line["pid"]]]


def _playing_seconds(db: Path) -> float:
    """From the first match start to the last result: the workers' time, not the CLI's start-up."""
    import sqlite3
    from datetime import datetime

    with sqlite3.connect(db) as conn:
        first, last = conn.execute("SELECT min(started_at), max(finished_at) FROM matches").fetchone()
    return (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()


def _wait_for_workers(env: dict[str, str], n: int) -> None:
    code = ("from arena.workers.celery_app import app; import sys; "
            f"sys.exit(0 if len(app.control.ping(timeout=1.0)) >= {n} else 1)")
    for _ in range(60):
        if subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT).returncode == 0:
            return
        time.sleep(0.5)
    raise RuntimeError("workers did not come up")


def _rating_updates_per_second(seconds: float = 2.0) -> float:
    from arena.evaluation.ratings import Skill, rate

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
    from arena.db import dispose_all, session_scope
    from arena.intake import bots
    from arena.records import recording

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


#: The platform's own parts of a match (see :class:`arena.workers.tasks.MatchCosts`); ``runner`` is the
#: engine, the protocol and the bots, reported beside them but not counted as overhead.
PLATFORM_PARTS = ("claim", "leases", "live", "convert", "record", "warm")


def _platform_overhead_ms(game: str, count: int = 10) -> float:
    """Wall ms per match of the platform's own parts, in-process (see :func:`_platform_overhead`)."""
    return _platform_overhead(game, count)["platform_ms"][0]


def _platform_overhead(game: str, count: int = 10) -> dict:
    """``count`` matches played by :func:`arena.workers.tasks.play_match_now` in this process (SQLite,
    no broker: live events go to the in-process bus), after two warm-up matches that start the
    warm bot pool; the per-part costs of :func:`_summarise`."""
    from arena.db import dispose_all, session_scope
    from arena.intake import bots
    from arena.records import recording
    from arena.workers import tasks

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    old_url = os.environ.get("ARENA_DATABASE_URL")
    os.environ["ARENA_DATABASE_URL"] = f"sqlite:///{folder / 'arena.sqlite3'}"
    dispose_all()
    lines: list[dict] = []
    try:
        with session_scope() as s:
            ids = [bots.register_version(s, game, RANDOM_BOT, name=f"r{i}").id for i in range(2)]
            sandbox = shutil.which("bwrap") is not None
            mids = [recording.create_match(s, game, _variant(game), ids, seed=i,
                                           sandbox=sandbox).id for i in range(count + 2)]
        for mid in mids[:2]:
            tasks.play_match_now(mid)
        tasks.collect_costs(lines.append)
        for mid in mids[2:]:
            tasks.play_match_now(mid)
        return _summarise(lines)
    finally:
        tasks.collect_costs(None)
        tasks.close_worker_bot_pool()
        dispose_all()
        if old_url is None:
            os.environ.pop("ARENA_DATABASE_URL", None)
        else:
            os.environ["ARENA_DATABASE_URL"] = old_url
        shutil.rmtree(folder, ignore_errors=True)


def _ms(pair: list[float], n: int) -> list[float]:
    return [round(pair[0] / n * 1000, 2), round(pair[1] / n * 1000, 2)]


def _summarise(lines: list[dict]) -> dict:
    """Per match, [wall ms, CPU ms] of each part and of the platform's total.

    CPU is the playing thread's (``thread_time``); ``other_threads_cpu_ms`` is what the rest of
    the process burnt during the matches (the live sender thread, gRPC's own threads, the lease
    keeper), from ``process_time``. With worker processes, ``between_matches`` is what a worker
    does from the end of one match to the start of the next (Celery acknowledging the task and
    receiving the next; wall includes waiting for the queue and for a core) and is part of the
    platform's total; ``lock_wait`` (inside ``record``) is the time spent getting the per-game
    rating lock, i.e. waiting for the other workers.
    """
    played = [line for line in lines if "runner" in line["parts"]]
    n = len(played)
    if not n:
        raise RuntimeError("no match was played")
    sums: dict[str, list[float]] = {}
    thread_cpu = process_cpu = 0.0
    for line in played:
        for name, (wall, cpu) in line["parts"].items():
            acc = sums.setdefault(name, [0.0, 0.0])
            acc[0] += wall
            acc[1] += cpu
        thread_cpu += sum(cpu for _, cpu in line["parts"].values())
        process_cpu += line["cpu_end"] - line["cpu_start"]
    parts = {name: _ms(sums.get(name, [0.0, 0.0]), n) for name in PLATFORM_PARTS}
    between = _between_matches(lines)
    pairs = _consecutive(lines) if between is not None else []
    if between is not None:
        parts["between_matches"] = between
    platform = [round(sum(v[0] for v in parts.values()), 2), round(sum(v[1] for v in parts.values()), 2)]
    return {
        "matches": n,
        "platform_ms": platform,
        "parts_ms": parts,
        "lock_wait_ms": round(sums.get("lock_wait", [0.0])[0] / n * 1000, 2),
        "runner_ms": _ms(sums["runner"], n),
        "bots_wall_ms": round(sums.get("bots_wall", [0.0])[0] / n * 1000, 2),
        "bots_cpu_ms": round(sums.get("bots_cpu", [0.0])[0] / n * 1000, 2),
        "other_threads_cpu_ms": round(max(0.0, process_cpu - thread_cpu) / n * 1000, 2),
        "between_matches_process_cpu_ms": round(statistics.fmean(
            (nxt["cpu_start"] - prev["cpu_end"]) * 1000 for prev, nxt in pairs), 2) if pairs else None,
    }


def _between_matches(lines: list[dict]) -> list[float] | None:
    """[wall ms, CPU ms] per match a worker spends between two consecutive matches: the median
    wall gap (it also holds the wait for the next message) and the mean CPU of the worker's
    playing thread — in a solo worker that is Celery's own thread: acknowledging the task,
    receiving and decoding the next. (What the process's other threads burn meanwhile is in
    ``between_matches_process_cpu_ms``.)"""
    if all(line["pid"] == os.getpid() for line in lines):
        return None  # in-process: no task to receive
    walls, cpus = [], []
    for prev, nxt in _consecutive(lines):
        walls.append((nxt["start"] - prev["end"]) * 1000)
        cpus.append((nxt.get("thread_cpu_start", 0.0) - prev.get("thread_cpu_end", 0.0)) * 1000)
    if not walls:
        return None
    return [round(statistics.median(walls), 2), round(statistics.fmean(cpus), 2)]


def _consecutive(lines: list[dict]) -> list[tuple[dict, dict]]:
    """Pairs of consecutive matches played by the same thread of the same process."""
    by_thread: dict[tuple[int, int], list[dict]] = {}
    for line in lines:
        by_thread.setdefault((line["pid"], line.get("thread", 0)), []).append(line)
    pairs = []
    for mine in by_thread.values():
        mine.sort(key=lambda line: line["start"])
        pairs.extend(zip(mine, mine[1:], strict=False))
    return pairs


def _overhead_figures(game: str) -> dict:
    summary = _platform_overhead(game, 40)
    wall, cpu = summary["platform_ms"]
    return {
        "in_process_platform_ms_per_match": [wall, cpu],
        "in_process_parts_ms": summary["parts_ms"],
        "in_process_runner_ms": summary["runner_ms"],
    }


def _goal(figures: dict) -> dict:
    """The ≤ 5 ms goal, wall ms, on both measures.

    ``in_process`` is the measure the goal was set on (issue 12's "9 ms today": this
    benchmark's in-process figure of the time, claim to rating in ``play_match`` on SQLite,
    without a broker). ``in_workers`` is the stricter one added since: the same parts inside
    ``arena worker`` processes, with the live feed going to a real Redis and Celery's hand-over
    between two matches counted too.
    """
    goal = {"in_process": figures["in_process_platform_ms_per_match"][0] <= 5.0}
    if "platform_overhead_ms_per_match" in figures:
        goal["in_workers"] = figures["platform_overhead_ms_per_match"][0] <= 5.0
    return goal


def _variant(game: str) -> str:
    from referee import registry

    return registry.get_spec(game).check(2, None)


def _schedule_ms(runs: int = 5) -> float:
    from arena.competition.round_robin import round_robin

    start = time.perf_counter()
    for seed in range(runs):
        round_robin(12, 4, 1, seed)
    return (time.perf_counter() - start) / runs * 1000


def bench(bots: int = 4, rounds: int = 12, repeats: int = 3) -> dict:
    """``repeats`` interleaved runs of one and two workers; medians are reported, since one
    run of a few dozen matches moves by ±20 % with whatever else the machine does.

    The platform overhead per match is measured inside the worker processes of the one-worker
    runs (real Redis, Celery, SQLite; :func:`_summarise`): the sum of its parts, wall and CPU,
    each part beside it; the runner (engine, protocol, bots) is reported apart and not counted.
    The two-worker runs add what scaling needs: CPU per match of each worker (equal to the
    one-worker figure if nothing serialises) and the time each waits on the rating lock.
    """
    load = os.getloadavg()  # other work on the machine skews the worker figures
    game = _pick_game()
    broker = _redis_url()
    ones, twos, one_costs, two_costs = [], [], [], []
    for _ in range(repeats):
        rate, costs = _matches_per_minute(game, 1, broker, bots, rounds)
        ones.append(rate)
        one_costs.append(costs)
        rate, costs = _matches_per_minute(game, 2, broker, bots, rounds)
        twos.append(rate)
        two_costs.append(costs)
    one, two = statistics.median(ones), statistics.median(twos)
    steady_ones = [c["steady_matches_per_minute"] for c in one_costs if c] if broker else []
    steady_twos = [c["steady_matches_per_minute"] for c in two_costs if c] if broker else []
    steady = bool(steady_ones) and None not in steady_ones + steady_twos
    figures = {
        "load_average_at_start": [round(x, 2) for x in load],
        "load_average_at_end": None,
        "mode": "redis + arena worker processes" if broker else "in-process pool (no Redis)",
        "game": f"{game}, 2 seats, random bots, {bots * (bots - 1) * rounds} matches per run",
        "cores": os.cpu_count(),
        "matches_per_minute_1_worker": round(one, 1),
        "matches_per_minute_2_workers": round(two, 1),
        "whole_run_speedup_2_vs_1": round(two / one, 2),
        "runs_1_worker": [round(x, 1) for x in ones],
        "runs_2_workers": [round(x, 1) for x in twos],
    }
    if steady:
        s1, s2 = statistics.median(steady_ones), statistics.median(steady_twos)
        figures.update({
            "steady_matches_per_minute_1_worker": s1,
            "steady_matches_per_minute_2_workers": s2,
            "steady_runs_1_worker": steady_ones,
            "steady_runs_2_workers": steady_twos,
        })
    figures["speedup_2_vs_1"] = round(s2 / s1, 2) if steady else figures["whole_run_speedup_2_vs_1"]
    figures["speedup_note"] = ("steady state: each worker after its warm-up match (_steady_rate)"
                               if steady else "whole run (no per-match lines without a broker)")
    if broker:
        figures.update(_worker_figures(one_costs, two_costs))
    figures.update(_overhead_figures(game))
    figures["goal_overhead_at_most_5ms"] = _goal(figures)
    figures.update({
        "trueskill_updates_per_s_4_seat": round(_rating_updates_per_second(), 1),
        "recorded_updates_per_s_4_seat_sqlite": round(_recorded_updates_per_second(), 1),
        "schedule_12_bots_4_seats_ms": round(_schedule_ms(), 2),
    })
    figures["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return figures


def _worker_figures(one_costs: list[dict], two_costs: list[dict]) -> dict:
    """Medians over the runs of what the workers logged (see :func:`bench`)."""
    def median_pair(pairs: list[list[float]]) -> list[float]:
        return [round(statistics.median(p[0] for p in pairs), 2),
                round(statistics.median(p[1] for p in pairs), 2)]

    parts = {name: median_pair([c["parts_ms"][name] for c in one_costs])
             for name in one_costs[0]["parts_ms"]}
    one_cpu = [w["cpu_ms_per_match"] for c in one_costs for w in c["workers"]]
    two_cpu = [w["cpu_ms_per_match"] for c in two_costs for w in c["workers"]]
    # Load-independent ceiling: 2 cores over the CPU a match needs (its worker and its bots),
    # against the one-worker rate measured at whatever load there was.
    need = statistics.median(one_cpu) + statistics.median(c["bots_cpu_ms"] for c in one_costs)
    return {
        "cpu_bound_matches_per_minute_2_cores": round(2 * 60_000 / need, 1),
        "platform_overhead_ms_per_match": median_pair([c["platform_ms"] for c in one_costs]),
        "platform_overhead_note": "[wall, CPU] ms, 1 worker; sum of platform_parts_ms",
        "platform_parts_ms": parts,
        "runner_ms_per_match": median_pair([c["runner_ms"] for c in one_costs]),
        "bots_wall_ms_per_match": round(statistics.median(c["bots_wall_ms"] for c in one_costs), 2),
        "other_threads_cpu_ms_per_match": round(
            statistics.median(c["other_threads_cpu_ms"] for c in one_costs), 2),
        "between_matches_process_cpu_ms": round(
            statistics.median(c["between_matches_process_cpu_ms"] for c in one_costs), 2),
        "bots_cpu_ms_per_match": round(statistics.median(c["bots_cpu_ms"] for c in one_costs), 2),
        "worker_cpu_ms_per_match_1_worker": round(statistics.median(one_cpu), 2),
        "worker_cpu_ms_per_match_2_workers": round(statistics.median(two_cpu), 2),
        "lock_wait_ms_per_match_2_workers": round(statistics.median(
            w["lock_wait_ms_per_match"] for c in two_costs for w in c["workers"]), 3),
        "platform_overhead_ms_per_match_2_workers": median_pair([c["platform_ms"] for c in two_costs]),
    }


if __name__ == "__main__":
    for key, value in bench().items():
        print(f"{key:<40} {value}")
