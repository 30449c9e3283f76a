"""The per-match parts of ``arena bench tournament`` run end to end in a short form (two real
matches, a few recorded results); figures are judged from the full bench, never here. The
worker-count part starts worker processes and runs a whole round-robin, so it is run by hand."""

from __future__ import annotations

from benchmarks import bench_tournament as bench


def test_platform_overhead_and_recording_rate_short_form() -> None:
    game = bench._pick_game()
    overhead = bench._platform_overhead_ms(game, count=2)
    assert 0 < overhead < 10_000
    assert bench._recorded_updates_per_second(count=10) > 0
