"""``arena bench record-reads`` (issue 40 item 3): the short form runs here and reports every
row — each read (match page, replay step, API replay, GetMatch) in each mode (cold, cold with
two walks, warm, worker-warmed) for JSON and compact storage. No timing is asserted."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import cli
from benchmarks import bench_record_reads
from tests.platform.conftest import redis_available


def test_the_short_bench_reports_every_row() -> None:
    out = bench_record_reads.bench(games=("black_angel",), matches=1, seconds=0.0, min_samples=2)
    modes = [m for m in bench_record_reads.MODES
             if m != "shared" or redis_available(bench_record_reads.REDIS_URL)]
    assert [(r["read"], r["mode"]) for r in out["rows"]] == [
        (read, mode) for read in bench_record_reads.READS for mode in modes]
    for row in out["rows"]:
        p50, p95 = row["compact"]
        assert 0 < p50 <= p95 and row["compact_n"] >= 2
        assert row["json"] is None if row["mode"] == "cold_two_walks" else row["json"][0] > 0
    assert len(bench_record_reads.table_lines(out)) == len(out["rows"]) + 1
    assert set(out["viewer_walks_ms"]["black_angel"]) == {"two_walks", "fused"}


def test_the_command_prints_the_table() -> None:
    result = CliRunner().invoke(cli, ["bench", "record-reads", "--game", "solenia", "--matches", "1",
                                      "--seconds", "0"])
    assert result.exit_code == 0, result.output
    assert "compact p50/p95" in result.output and "get_match" in result.output
    result = CliRunner().invoke(cli, ["bench", "record-reads", "--game", "chess"])
    assert result.exit_code == 2 and "unknown" in result.output
