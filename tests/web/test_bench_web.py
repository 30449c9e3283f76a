"""The website benchmark runs end to end on a small database (figures are not checked here:
performance is judged from ``arena bench web`` at full size, never from a unit test)."""

from __future__ import annotations

import pytest

from benchmarks.bench_web import bench


def _check_pages(result: dict) -> None:
    pages = (
        "trivial_route",
        "leaderboard",
        "history_first_page",
        "history_deep_page",
        "history_by_bot",
        "history_done_forfeits",
        "history_by_game_and_outcome",
        "match_page",
        "match_replay_step",
        "bot_page",
    )
    for page in pages:
        assert result[page]["n"] == 3
        assert 0 < result[page]["p50_ms"] <= result[page]["p95_ms"] <= result[page]["max_ms"]
    assert isinstance(result["goal_p95_under_50ms"], bool)


def test_bench_web_runs_over_http_on_a_small_postgres_database() -> None:
    from benchmarks.bench_db import postgres_available

    if not postgres_available():
        pytest.skip("no PostgreSQL")
    result = bench(samples=3, bots=20, matches=400)
    assert result["bots"] == 20 and result["matches"] == 400
    assert result["database"].startswith("postgresql") and result["server"].startswith("waitress")
    _check_pages(result)


def test_bench_web_runs_on_a_small_database(tmp_path) -> None:
    result = bench(samples=3, bots=20, matches=400, folder=str(tmp_path), database="sqlite")
    assert result["bots"] == 20 and result["matches"] == 400
    _check_pages(result)
    again = bench(samples=1, bots=20, matches=400, folder=str(tmp_path), database="sqlite")
    assert again["generated_in_s"] == "reused"
