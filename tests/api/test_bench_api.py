"""The API benchmark runs end to end on a small PostgreSQL database (SQLite without one);
figures are judged from ``arena bench api`` at full size, never from a unit test."""

from __future__ import annotations

from benchmarks.bench_api import bench
from benchmarks.bench_db import postgres_available


def test_bench_api_runs_on_a_small_database() -> None:
    result = bench(bots=30, matches=300, seconds=0.2, threads=2)
    assert result["bots"] == 30 and result["matches"] == 300
    assert result["database"] == ("postgresql" if postgres_available() else "sqlite (WAL)")
    for call in ("bare_unary_health_check", "get_leaderboard_top100", "list_matches_page1_50",
                 "list_matches_page200_50", "list_matches_by_bot_50"):
        figures = result[call]
        assert figures["calls"] > 0 and figures["rps"] > 0 and figures["rps_concurrent"] > 0
        assert 0 < figures["p50_ms"] <= figures["p99_ms"]
    assert result["get_leaderboard_top100"]["rps_vs_bare"] > 0
    assert isinstance(result["goal_leaderboard_at_least_half_of_bare_rps"], bool)


def test_bench_api_measures_a_kept_website_database() -> None:
    """``arena bench api --keep NAME`` measures the website benchmark's kept database (loaded
    by this first run) on its first game, without a load of its own."""
    import uuid

    import pytest

    from benchmarks.bench_db import _admin

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    name = f"arena_bench_keep_{uuid.uuid4().hex[:8]}"
    try:
        result = bench(bots=20, matches=400, seconds=0.2, threads=2, keep=name)
        assert result["database"] == f"postgresql {name} (loaded now, kept)"
        assert result["game"] == "toy" and "populate_s" not in result
        assert result["get_leaderboard_top100"]["calls"] > 0
        assert result["list_matches_by_bot_50"]["calls"] > 0
    finally:
        conn = _admin()[0]
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()


def test_bench_api_measures_get_match_on_compact_records() -> None:
    """``arena bench api --keep NAME --records compact``: GetMatch of matches never read
    (regenerated) and of a few read before, each reply checked to carry that match's record."""
    import uuid

    import pytest

    from benchmarks.bench_db import _admin

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    name = f"arena_bench_keep_{uuid.uuid4().hex[:8]}"
    try:
        result = bench(bots=20, matches=400, seconds=0.2, threads=2, keep=name, records="compact")
        assert result["game"] == "black_angel" and result["records"] == "compact"
        assert result["get_match_cold"]["calls"] > 0 and result["get_match_warm"]["calls"] > 0
        assert result["record_cache_misses"] > 0 and result["record_cache_hits"] > 0
    finally:
        conn = _admin()[0]
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.close()
