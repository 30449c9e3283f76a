"""Records: JSON round trip, replay of a real match, and `arena replay` failing loudly on a
record that was altered."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli.play import register
from referee.record import MatchRecord, RecordError, final_ranks
from referee.replay import ReplayMismatch, replay
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap, play

pytestmark = needs_bwrap


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    """A real match with a forfeit in it (the illegal-id bot), so forced decisions replay too."""
    return play("toy", [str(RANDOM_BOT), str(RANDOM_BOT), str(HOSTILE / "illegal_id")], seed=21)


@pytest.fixture
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """test group"""

    register(group)
    return group


def test_record_json_round_trip(record: MatchRecord) -> None:
    text = record.to_json()
    again = MatchRecord.from_json(text)
    assert again == record
    data = json.loads(text)
    assert data["format_version"] == 1
    assert data["events"] == record.events() and data["events"]
    assert data["forfeits"][0]["reason"] == "illegal_option"
    assert {"seat", "decisions", "time_used_ms", "bank_left_ms", "cpu_ms"} <= set(data["totals"][0])
    assert data["started_at"] <= data["ended_at"]


def test_replay_reproduces_the_match(record: MatchRecord) -> None:
    state, summary = replay(record)
    assert state.is_over()
    assert summary.decisions == len(record.decisions)
    assert summary.result["ranks"] == record.result["ranks"]
    assert record.result["ranks"][2] == 3  # the forfeited seat is last


def test_cli_replay_ok(record: MatchRecord, cli: click.Group, tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(record.to_json())
    out = CliRunner().invoke(cli, ["replay", str(path)])
    assert out.exit_code == 0, out.output
    assert "replay OK" in out.output


def _tamper_option(data: dict) -> str:
    d = next(d for d in data["decisions"] if d["option"].startswith("play:"))
    d["option"] = "play:99"
    return f"decision {d['n']}: option 'play:99' is illegal"


def _tamper_score(data: dict) -> str:
    data["result"]["scores"][0] += 1
    return "result scores"


def _tamper_event(data: dict) -> str:
    d = next(d for d in data["decisions"] if d["events"])
    d["events"][0] = "seat 0 wins everything"
    return f"decision {d['n']}: events differ"


def _tamper_truncate(data: dict) -> str:
    data["decisions"].pop()
    return "the game is not over"


def _tamper_seat(data: dict) -> str:
    data["decisions"][0]["seat"] = 1
    return "decision 0: the record says seat 1 chose, the engine says seat 0"


def _tamper_forfeit(data: dict) -> str:
    data["forfeits"] = []
    return "have forced decisions but no forfeit"


@pytest.mark.parametrize(
    "tamper",
    [_tamper_option, _tamper_score, _tamper_event, _tamper_truncate, _tamper_seat, _tamper_forfeit],
)
def test_cli_replay_fails_loudly_on_a_tampered_record(
    record: MatchRecord, cli: click.Group, tmp_path: Path, tamper
) -> None:
    data = json.loads(record.to_json())
    expected = tamper(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    out = CliRunner().invoke(cli, ["replay", str(path)])
    assert out.exit_code == 1
    assert "REPLAY FAILED" in out.output and expected in out.output, out.output
    with pytest.raises(ReplayMismatch):
        replay(MatchRecord.from_json(path.read_text()))


def test_cli_replay_on_a_file_that_is_no_record(cli: click.Group, tmp_path: Path) -> None:
    path = tmp_path / "nonsense.json"
    path.write_text("{not json")
    out = CliRunner().invoke(cli, ["replay", str(path)])
    assert out.exit_code == 1 and "not valid JSON" in out.output
    assert "Traceback" not in out.output
    with pytest.raises(RecordError, match="format_version"):
        MatchRecord.from_json("{}")


def test_final_ranks_put_forfeits_last_sharing_the_rank() -> None:
    assert final_ranks([1, 2, 3, 4], set()) == [1, 2, 3, 4]
    assert final_ranks([1, 2, 3, 4], {0}) == [4, 1, 2, 3]
    assert final_ranks([1, 1, 3, 4], {2, 3}) == [1, 1, 3, 3]
    assert final_ranks([2, 1, 1, 4], {1}) == [2, 4, 1, 3]
    assert final_ranks([1], {0}) == [1]


def test_opening_events_head_the_log_and_are_checked_on_replay(tmp_path: Path) -> None:
    # Solenia solo: the virtual player moves during set-up, before the first decision.
    solo = play("solenia", [str(RANDOM_BOT)], seed=4, variant="summer")
    assert solo.opening_events, "set-up events must reach the record"
    assert solo.events()[: len(solo.opening_events)] == solo.opening_events
    replay(solo)
    data = json.loads(solo.to_json())
    data["opening_events"] = data["opening_events"][:-1]
    with pytest.raises(ReplayMismatch, match="opening events differ"):
        replay(MatchRecord.from_dict(data))
