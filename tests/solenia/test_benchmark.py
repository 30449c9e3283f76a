"""The benchmark entry point runs and reports its figures (no speed assertion: see benchmarks/)."""

from __future__ import annotations

from benchmarks.bench_solenia import bench


def test_bench_reports_decisions_games_and_clone_cost() -> None:
    figures = bench(seconds=0.3)
    assert figures["game"] == "solenia"
    assert figures["decisions_per_s"] > 0 and figures["games_per_s"] > 0
    assert figures["clone_plus_determinise_us"] > 0
    assert {(r["players"], r["variant"]) for r in figures["configurations"]} == {
        (2, "summer"), (4, "summer"), (1, "winter-tech"),
    }
