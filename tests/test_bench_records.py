"""``arena bench records`` (issue 40 item 1, measured): the compact form regenerates today's JSON
byte for byte, and a changed record is not silently regenerated as the stored one."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import cli
from benchmarks import bench_records
from benchmarks.random_records import played_record


@pytest.mark.parametrize("game", ["black_angel", "solenia", "orbital"])
def test_the_compact_form_regenerates_the_json_byte_for_byte(game: str) -> None:
    record = played_record(game, 3, players=2)
    record.decisions[1].comment = "thinking… ✓"
    record.decisions[2].cpu_ms = None
    record.decisions[4].event_audiences = None  # a decision recorded before audiences existed
    data = bench_records.encode(record)
    assert bench_records.decode(data).to_json() == record.to_json()
    assert bench_records.stored_text(bench_records.decode(data)) == bench_records.stored_text(record)
    assert len(data) * 5 < len(record.to_json().encode())
    record.decisions[3].wall_ms += 1e-9  # the times come back exactly, not nearly
    assert bench_records.decode(data).to_json() != record.to_json()
    for d in record.decisions:  # whole microseconds take the short form, and come back exact
        d.wall_ms = round(d.wall_ms * 1000) / 1000
    short = bench_records.encode(record)
    assert len(short) < len(data) and bench_records.decode(short).to_json() == record.to_json()


def test_the_command_prints_ratios_and_no_mismatch() -> None:
    result = CliRunner().invoke(cli, ["bench", "records", "--game", "solenia", "--matches", "2"])
    assert result.exit_code == 0, result.output
    assert '"not_byte_identical": 0' in result.output and "ratio_json" in result.output
    result = CliRunner().invoke(cli, ["bench", "records", "--game", "chess"])
    assert result.exit_code == 2 and "unknown" in result.output
