"""``arena bench records`` (issue 40 items 1, 3, 5): the compact form beside today's JSON on the
same matches — every regenerated record byte for byte, the sizes, times and storage measured.
The short form runs here; the long one (the figures of docs/records-size.md) only with --full."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import cli
from benchmarks import bench_records


def test_the_short_bench_measures_every_game_and_the_storage() -> None:
    out = bench_records.bench(("black_angel", "solenia", "orbital"), matches=2, storage=True)
    for game in ("black_angel", "solenia", "orbital"):
        row = out[game]
        assert row["not_byte_identical"] == 0
        assert row["median_compact_bytes"] * 15 < row["median_json_bytes"], row
        assert row["regenerate_ms"] > 0 and row["engine_ms"] > 0 and row["compact_convert_ms"] > 0
    storage = out["storage"]
    assert storage["json"]["database_bytes"] > 10 * storage["compact"]["database_bytes"] > 0
    assert storage["compact"]["usd_per_million_matches_per_month"] < storage["json"]["usd_per_million_matches_per_month"]


def test_the_command_prints_ratios_and_refuses_what_it_cannot_measure() -> None:
    result = CliRunner().invoke(cli, ["bench", "records", "--game", "solenia", "--matches", "1"])
    assert result.exit_code == 0, result.output
    assert '"not_byte_identical": 0' in result.output and "ratio_json" in result.output
    result = CliRunner().invoke(cli, ["bench", "records", "--game", "chess"])
    assert result.exit_code == 2 and "unknown" in result.output
    result = CliRunner().invoke(cli, ["bench", "records", "--game", "solenia", "--players", "5"])
    assert result.exit_code == 2 and "not played by 5" in result.output


@pytest.mark.slow
def test_the_long_bench_meets_twenty_times_in_every_game_and_player_count() -> None:
    for players in (2, 3, 4):
        out = bench_records.bench(matches=30, players=players, storage=players == 2)
        for game in ("black_angel", "solenia", "orbital"):
            assert out[game]["not_byte_identical"] == 0
            assert out[game]["ratio_json"] >= 20, (players, game, out[game])
            assert out[game]["regenerate_over_engine"] < 1, (players, game, out[game])
