"""``arena bench envs`` and ``arena bench ismcts-vs-openspiel``: short runs print their figures."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

pytest.importorskip("pyspiel", reason='the envs extra is not installed: pip install -e ".[envs]"')

from benchmarks.bench_ismcts_openspiel import play_one, wilson  # noqa: E402
from benchmarks.command import bench_group  # noqa: E402


def test_wilson_interval() -> None:
    low, high = wilson(0.5, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    low, high = wilson(1.0, 50)
    assert round(low, 3) == 0.929 and high == 1.0
    assert wilson(0.3, 0) == (0.0, 1.0)


def test_bench_envs_prints_every_loop_and_the_ratios() -> None:
    out = CliRunner().invoke(
        bench_group, ["envs", "--game", "solenia", "--toolkit", "pettingzoo", "--seconds", "0.2"]
    )
    assert out.exit_code == 0, out.output
    for key in (
        "engine_per_cpu_s",
        "engine+observation_per_cpu_s",
        "pettingzoo_per_cpu_s",
        "pettingzoo-mask_per_cpu_s",
        "pettingzoo_vs_engine+observation",
        "pettingzoo-mask_vs_engine",
    ):
        assert key in out.output
    assert "gymnasium" not in out.output


def test_bench_envs_measures_async_vector_envs_beside_one_env() -> None:
    out = CliRunner().invoke(
        bench_group, ["envs", "--game", "orbital", "--toolkit", "gymnasium", "--seconds", "0.2",
                      "--batch", "3"]
    )
    assert out.exit_code == 0, out.output
    for key in ("gymnasium+masks_vs_engine", "single_env_steps_per_s",
                "async_2_workers_steps_per_s", "async_2_workers_vs_single",
                "batched_2x3_steps_per_s", "batched_2x3_vs_single",
                "batched_2x3_cpu_us_per_step", "single_env_cpu_us_per_step",
                "batched_2x3_critical_cpu_us_per_step", "batched_2x3_vs_single_by_cpu",
                "async_2_workers_vs_single_by_cpu"):
        assert key in out.output


def test_bench_envs_vector_envs_can_play_the_default_greedy_opponents() -> None:
    out = CliRunner().invoke(
        bench_group, ["envs", "--game", "solenia", "--toolkit", "gymnasium", "--seconds", "0.2",
                      "--batch", "2", "--opponents", "greedy"]
    )
    assert out.exit_code == 0, out.output
    assert "async_2_workers_vs_single" in out.output and "batched_2x2_vs_single" in out.output
    bad = CliRunner().invoke(bench_group, ["envs", "--opponents", "ismcts"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_one_game_against_openspiel_gives_both_sides_the_budget() -> None:
    out = play_one("solenia", seed=3, our_seat=1, budget=0.005)
    assert out["score"] in (0.0, 0.5, 1.0) and out["decisions"] > 20
    for side in (0, 1):
        assert out["searched"][side] > 5
        # each side honours the budget at the grain of its search: a side checks its clock
        # between steps (OpenSpiel's side between determinisations), so it runs over by up to
        # one step. Measured per searched decision with a 5 ms budget: quiet, ours 6.1 ms and
        # OpenSpiel's 14.6 ms; in a CI run at load, OpenSpiel's 20.6 ms (over the 20 ms bound
        # this test had). Ten budgets leave room for the grain and a loaded host; a side that
        # searched on past its deadline would still not stay under them.
        assert out["spent"][side] / out["searched"][side] < 0.005 * 10
    bad = CliRunner().invoke(bench_group, ["ismcts-vs-openspiel", "--game", "chess"])
    assert bad.exit_code != 0 and "chess" in bad.output
