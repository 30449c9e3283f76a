"""`arena bench search` runs and reports what it measured (no speed or strength is asserted:
the figures come from the benchmark on a quiet machine)."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import cli
from benchmarks.bench_search import iterations_per_second, win_share


def test_win_share_plays_seeds_with_alternating_seats_and_states_its_budget():
    out = win_share("solenia", seeds=2, iterations=8)
    assert out["games"] == 2 and out["seeds"] == "0..1"
    assert out["budget"] == "8 iterations per decision"
    assert 0.0 <= out["win_share"] <= 1.0
    assert out["wins"] + out["ties"] <= 2


def test_iterations_are_counted_per_cpu_second():
    out = iterations_per_second("black_angel", iterations=20, positions=2)
    assert out["iterations"] == 40 and out["iterations_per_s"] > 0


def test_cli_checks_its_arguments_before_running():
    bad = CliRunner().invoke(cli, ["bench", "search", "--game", "toy"])
    assert bad.exit_code != 0 and "no greedy bot to play against for toy" in bad.output
    bad = CliRunner().invoke(cli, ["bench", "search", "--iterations", "0"])
    assert bad.exit_code != 0 and "above 0" in bad.output


def test_orbital_plays_against_its_greedy_bot():
    out = win_share("orbital", seeds=1, iterations=4)
    assert out["games"] == 1 and 0.0 <= out["win_share"] <= 1.0
    speed = iterations_per_second("orbital", iterations=10, positions=2)
    assert speed["iterations"] == 20 and speed["iterations_per_s"] > 0


def test_cli_speed_only():
    out = CliRunner().invoke(cli, ["bench", "search", "--game", "solenia", "--seeds", "0"])
    assert out.exit_code == 0, out.output
    assert "solenia_iterations_per_cpu_s" in out.output
    out = CliRunner().invoke(cli, ["bench", "search", "--game", "orbital", "--seeds", "0"])
    assert out.exit_code == 0, out.output
    assert "orbital_iterations_per_cpu_s" in out.output
