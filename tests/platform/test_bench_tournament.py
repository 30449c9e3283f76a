"""The per-match parts of ``arena bench tournament`` run end to end in a short form (two real
matches, a few recorded results); figures are judged from the full bench, never here. The
worker-count part starts worker processes and runs a whole round-robin, so it is run by hand."""

from __future__ import annotations

from benchmarks import bench_tournament as bench


def test_platform_overhead_and_recording_rate_short_form() -> None:
    game = bench._pick_game()
    summary = bench._platform_overhead(game, count=2)
    assert summary["matches"] == 2
    parts = summary["parts_ms"]
    assert set(parts) == set(bench.PLATFORM_PARTS)  # in-process: no Celery between matches
    # The total is the sum of the platform's parts, and the runner is not one of them.
    assert summary["platform_ms"][0] == round(sum(wall for wall, _ in parts.values()), 2)
    assert parts["claim"][0] > 0 and parts["record"][0] > 0
    assert summary["runner_ms"][0] > summary["bots_wall_ms"] > 0
    assert 0 <= summary["lock_wait_ms"] <= parts["record"][0]
    assert bench._recorded_updates_per_second(count=10) > 0


def test_costs_between_matches_come_from_worker_processes_only() -> None:
    def line(pid: int, start: float, end: float) -> dict:
        return {"pid": pid, "thread": 7, "start": start, "end": end, "cpu_start": start / 10,
                "cpu_end": end / 10, "thread_cpu_start": start / 20, "thread_cpu_end": end / 20,
                "parts": {"runner": [end - start, 0.0]}}

    lines = [line(1, 0.0, 1.0), line(1, 1.5, 2.0), line(2, 0.0, 0.5), line(2, 0.7, 1.0)]
    # Gaps 0.5 s and 0.2 s (median 350 ms of wall); thread CPU 25 ms and 10 ms (mean 17.5 ms).
    assert bench._between_matches(lines) == [350.0, 17.5]
    summary = bench._summarise(lines)
    assert summary["between_matches_process_cpu_ms"] == 35.0  # the whole process: 50 and 20 ms
    assert summary["parts_ms"]["between_matches"] == [350.0, 17.5]


def test_each_worker_s_first_match_is_its_warm_up_and_left_out() -> None:
    def line(pid: int, start: float) -> dict:
        return {"pid": pid, "start": start}

    lines = [line(1, 2.0), line(2, 5.0), line(1, 1.0), line(2, 4.0), line(1, 3.0)]
    assert [(x["pid"], x["start"]) for x in bench._without_first_matches(lines)] == [
        (1, 2.0), (2, 5.0), (1, 3.0)]


def test_the_steady_rate_counts_each_worker_from_the_end_of_its_warm_up() -> None:
    def line(pid: int, start: float, end: float) -> dict:
        return {"pid": pid, "start": start, "end": end}

    # Worker 1: a 2 s warm-up, then 4 matches in 2 s (120/min); worker 2: a 1 s warm-up, then
    # 3 matches in 3 s (60/min). The whole run (8 matches in 4 s) would say 120/min.
    one = [line(1, 0.0, 2.0), *(line(1, 2.0 + i * 0.5, 2.5 + i * 0.5) for i in range(4))]
    two = [line(2, 0.0, 1.0), *(line(2, 1.0 + i, 2.0 + i) for i in range(3))]
    assert bench._steady_rate(one + two) == 180.0
    assert bench._steady_rate(one[:2] + two) is None  # a worker without a steady state
