"""The gain of each broker, Redis, database and rating shortcut on the platform cost per match
(``python -m benchmarks.bench_shortcuts_data``; docs/shortcuts.md).

The figure is ``arena bench tournament``'s platform cost per match inside a real ``arena
worker`` (real Redis, Celery, SQLite; :func:`benchmarks.bench_tournament._matches_per_minute`
with one worker: claim, leases, live feed, conversion, recording, and Celery between two
matches), [wall ms, CPU ms of the playing thread]. It is measured, in one run and interleaved
(round after round, each setting once per round, in a rotated order), with every shortcut on,
with all of them off (``ARENA_SHORTCUTS=off``), and with each one turned off alone
(``ARENA_SHORTCUTS=-NAME``). A shortcut's gain is what turning it off alone adds to the CPU
figure, as a share of the figure with every shortcut on (medians over the rounds). CPU rather
than wall: it is what the worker spends, and what a loaded machine (other work on its two
cores) does not inflate.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from benchmarks.bench_tournament import _matches_per_minute, _pick_game, _redis_url

#: The shortcuts whose gain is measured: each one's effect is on the per-match path
#: (kombu_restore_fix only acts when a worker loses Redis).
MEASURED = (
    "kombu_unacked_scripts",
    "redis_direct_scripts",
    "sql_driver_cursor",
    "trueskill_two_seat",
)


def bench(
    rounds: int = 3,
    bots: int = 4,
    robin_rounds: int = 12,
    measured: tuple[str, ...] = MEASURED,
    together: tuple[tuple[str, ...], ...] = (),
) -> dict:
    """``together``: groups of shortcuts also turned off at once (what dropping them all costs)."""
    broker = _redis_url()
    if broker is None:
        raise RuntimeError("needs Redis (ARENA_BENCH_REDIS, default redis://127.0.0.1:6379/12)")
    game = _pick_game()
    settings = ["on", "off", *(f"-{name}" for name in measured)]
    settings += [",".join(f"-{name}" for name in group) for group in together]
    runs: dict[str, list[dict]] = {s: [] for s in settings}
    old = os.environ.get("ARENA_SHORTCUTS")
    load = os.getloadavg()
    started = time.time()
    try:
        for r in range(rounds):
            order = settings[r % len(settings) :] + settings[: r % len(settings)]
            for setting in order:
                os.environ["ARENA_SHORTCUTS"] = setting
                _, costs = _matches_per_minute(game, 1, broker, bots, robin_rounds)
                runs[setting].append(costs)
                print(
                    f"round {r + 1}/{rounds} {setting}: platform {costs['platform_ms']} ms",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        if old is None:
            os.environ.pop("ARENA_SHORTCUTS", None)
        else:
            os.environ["ARENA_SHORTCUTS"] = old

    def figure(setting: str) -> list[float]:
        pairs = [c["platform_ms"] for c in runs[setting]]
        return [
            round(statistics.median(p[0] for p in pairs), 3),
            round(statistics.median(p[1] for p in pairs), 3),
        ]

    def parts(setting: str) -> dict[str, float]:
        names = runs[setting][0]["parts_ms"]
        return {
            n: round(statistics.median(c["parts_ms"][n][1] for c in runs[setting]), 3)
            for n in names
        }

    on = figure("on")
    result: dict = {
        "game": f"{game}, 2 seats, random bots, {bots * (bots - 1) * robin_rounds} matches a run, 1 worker",
        "rounds": rounds,
        "load_average_at_start": [round(x, 2) for x in load],
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "minutes": round((time.time() - started) / 60, 1),
        "platform_ms_all_on": on,
        "platform_ms_all_off": figure("off"),
        "off_vs_on_cpu_ratio": round(figure("off")[1] / on[1], 3),
        "cpu_runs_all_on": [c["platform_ms"][1] for c in runs["on"]],
        "cpu_runs_all_off": [c["platform_ms"][1] for c in runs["off"]],
        "cpu_parts_all_on": parts("on"),
        "cpu_parts_all_off": parts("off"),
    }
    for name in measured:
        alone = figure(f"-{name}")
        result[f"without_{name}"] = {
            "platform_ms": alone,
            "cpu_runs": [c["platform_ms"][1] for c in runs[f"-{name}"]],
            "cpu_parts": parts(f"-{name}"),
            "gain_cpu_ms": round(alone[1] - on[1], 3),
            "gain_share_of_figure": round((alone[1] - on[1]) / on[1], 3),
            "ratio_off_vs_on": round(alone[1] / on[1], 3),
        }
    for group in together:
        setting = ",".join(f"-{name}" for name in group)
        alone = figure(setting)
        result[f"without_{'+'.join(group)}"] = {
            "platform_ms": alone,
            "cpu_runs": [c["platform_ms"][1] for c in runs[setting]],
            "cpu_parts": parts(setting),
            "gain_cpu_ms": round(alone[1] - on[1], 3),
            "gain_share_of_figure": round((alone[1] - on[1]) / on[1], 3),
            "ratio_off_vs_on": round(alone[1] / on[1], 3),
        }
    return result


if __name__ == "__main__":
    import json

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(json.dumps(bench(rounds=rounds), indent=1))
