"""The engine benchmark runs for every game and reports its figures.

No speed is asserted here (machines are noisy): `arena bench engine GAME` is where figures come from.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import cli
from benchmarks.bench_engine import bench_all
from referee import registry


@pytest.mark.parametrize("game", ["black_angel", "solenia"])
def test_bench_all_covers_every_configuration(game: str) -> None:
    figures = bench_all(game, seconds=0.6)
    configs = registry.get_spec(game).configurations
    assert [(r["players"], r["variant"]) for r in figures["rows"]] == list(configs)
    assert all(r["games"] >= 1 and r["decisions"] > 0 for r in figures["rows"])
    assert figures["decisions_per_s"] > 0 and figures["clone_plus_determinise_us_max"] > 0


def test_a_reference_engine_is_measured_in_the_same_run() -> None:
    figures = bench_all("orbital", seconds=0.3, rounds=1)
    assert figures["reference"] == "solenia" and figures["reference_decisions_per_s"] > 0
    assert abs(figures["ratio_to_reference"] - figures["decisions_per_s"] / figures["reference_decisions_per_s"]) < 0.011
    assert all(r["cpu_seconds"] > 0 for r in figures["rows"])
    assert "reference" not in bench_all("orbital", seconds=0.1, reference=None, rounds=1)


def test_cli_prints_one_row_per_configuration() -> None:
    out = CliRunner().invoke(cli, ["bench", "engine", "solenia", "--seconds", "0.4"])
    assert out.exit_code == 0, out.output
    assert out.output.count("winter-tech") == 4  # 1-4 players


def test_cli_unknown_game_is_one_clear_line() -> None:
    out = CliRunner().invoke(cli, ["bench", "engine", "chess"])
    assert out.exit_code != 0 and "unknown game 'chess'" in out.output
    assert "Traceback" not in out.output
