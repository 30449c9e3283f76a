"""`arena fork`: rebuild the state before decision N of an archived match and play it on.

Real matches with real sandboxed bots: the greedy sample bots are deterministic (their choices
depend only on the observation), so a fork with the same bots must retell the original exactly.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli.fork import register as register_fork
from arena.cli.play import register as register_play
from arena.intake.house_bots import SAMPLE_BOTS
from arena.records.fork import ForkError, Original, command_for, load, plan
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from referee.record import MatchRecord
from referee.replay import replay
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap

pytestmark = needs_bwrap


@pytest.fixture
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """test group"""

    register_play(group)
    register_fork(group)
    return group


def _play(game: str, bots: list[Path], seed: int) -> MatchRecord:
    config = MatchConfig(game=game, seats=[SeatSpec(f"s{i}", str(b)) for i, b in enumerate(bots)],
                         seed=seed, record_sources=True)
    return run_match(config)


@pytest.mark.parametrize(("game", "seed", "at"), [("solenia", 11, 37), ("black_angel", 5, 20)])
def test_fork_with_the_same_bots_retells_the_match(game: str, seed: int, at: int) -> None:
    greedy = SAMPLE_BOTS / f"{game}_greedy"
    original = _play(game, [greedy, greedy], seed)
    assert not original.forfeits and len(original.decisions) > at
    config = plan(load_from(original), at, 1, str(greedy), None)
    fork = run_match(config)
    assert [(d.seat, d.option, d.events) for d in fork.decisions] == [
        (d.seat, d.option, d.events) for d in original.decisions
    ]
    assert fork.result == original.result
    assert fork.match_id != original.match_id
    assert fork.origin == {"match_id": original.match_id, "decision": at, "seat": 1, "bot": "s1"}
    # the prefix is the original's (recorded time and comments); the bots played the rest
    assert [d.wall_ms for d in fork.decisions[:at]] == [d.wall_ms for d in original.decisions[:at]]
    replay(fork)


def load_from(record: MatchRecord) -> Original:
    return Original(record, [s.get("source") for s in record.seats])


def test_fork_with_another_bot_plays_on_legally_and_records_its_origin(cli: click.Group,
                                                                       tmp_path: Path) -> None:
    orig_file, fork_file = tmp_path / "orig.json", tmp_path / "fork.json"
    played = CliRunner().invoke(cli, ["play", "solenia", "--bot", "greedy", "--bot", "greedy",
                                      "--seed", "3", "--out", str(orig_file)])
    assert played.exit_code == 0, played.output
    original = MatchRecord.from_json(orig_file.read_text())
    at = 25
    result = CliRunner().invoke(cli, ["fork", str(orig_file), "--at", str(at), "--seat", "0",
                                      "--bot", "random", "--out", str(fork_file)])
    assert result.exit_code == 0, result.output
    assert f"fork of {original.match_id} at decision {at}, seat 0" in result.output
    assert "random_bot" in result.output
    data = json.loads(fork_file.read_text())
    assert data["origin"] == {"match_id": original.match_id, "decision": at, "seat": 0,
                              "bot": "random_bot"}
    fork = MatchRecord.from_dict(data)
    assert fork.decisions[:at] == original.decisions[:at]
    # the random bot chose differently from the greedy one somewhere after the fork point
    assert [d.option for d in fork.decisions[at:]] != [d.option for d in original.decisions[at:]]
    assert not fork.forfeits
    replay(fork)  # every decision legal, the result the engine's
    replayed = CliRunner().invoke(cli, ["replay", str(fork_file)])
    assert replayed.exit_code == 0, replayed.output


def test_a_forfeit_before_the_fork_point_is_carried(tmp_path: Path) -> None:
    original = _play("toy", [RANDOM_BOT, HOSTILE / "crash_at_start"], 4)
    assert [f.seat for f in original.forfeits] == [1]
    at = min(3, len(original.decisions) - 1)
    fork = run_match(plan(load_from(original), at, 0, str(RANDOM_BOT), None))
    assert [(f.seat, f.reason, f.decision) for f in fork.forfeits] == [(1, "start_failed", 0)]
    replay(fork)
    with pytest.raises(ForkError, match="seat 1 forfeited at decision 0"):
        plan(load_from(original), at, 1, str(RANDOM_BOT), None)


def _toy_record(tmp_path: Path) -> Path:
    record = _play("toy", [RANDOM_BOT, RANDOM_BOT], 8)
    path = tmp_path / "toy.json"
    path.write_text(record.to_json())
    return path


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--at", "999", "--seat", "0", "--bot", "random"], "--at 999: the match has decisions 0.."),
        (["--at", "-1", "--seat", "0", "--bot", "random"], "--at -1"),
        (["--at", "1", "--seat", "5", "--bot", "random"], "--seat 5: the match has seats 0..1"),
        (["--at", "1", "--seat", "0", "--bot", "nowhere/bot"], "--bot nowhere/bot: bot 'nowhere/bot' is neither"),
        (["--at", "1", "--seat", "0", "--bot", "random", "--others", "./missing"],
         "--others ./missing: bot './missing' is neither"),
        (["--at", "1", "--seat", "0", "--bot", "random", "--out", "no/such/dir/f.json"],
         "--out no/such/dir/f.json: the folder"),
    ],
)
def test_fork_checks_its_arguments_before_playing(cli: click.Group, tmp_path: Path,
                                                  extra: list[str], message: str) -> None:
    path = _toy_record(tmp_path)
    result = CliRunner().invoke(cli, ["fork", str(path), *extra])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "fork of" not in result.output  # nothing was played
    assert "Traceback" not in result.output


def test_fork_refuses_a_missing_file_and_a_record_that_does_not_replay(cli: click.Group,
                                                                       tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["fork", str(tmp_path / "gone.json"), "--at", "1",
                                      "--seat", "0", "--bot", "random"])
    assert result.exit_code == 2 and "no such record file" in result.output
    path = _toy_record(tmp_path)
    data = json.loads(path.read_text())
    data["decisions"][0]["option"] = "not-an-option"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["fork", str(path), "--at", "2", "--seat", "0", "--bot", "random"])
    assert result.exit_code == 2, result.output
    assert "does not replay with this engine: decision 0" in result.output


def test_other_seats_need_their_recorded_bot_or_others(tmp_path: Path) -> None:
    record = _play("toy", [RANDOM_BOT, RANDOM_BOT], 2)
    unknown = Original(record, [None, None])
    with pytest.raises(ForkError, match=r"seats 1 \(s1\) are not on this machine: give --others"):
        plan(unknown, 1, 0, str(RANDOM_BOT), None)
    config = plan(unknown, 1, 0, str(RANDOM_BOT), str(RANDOM_BOT))
    assert [s.source for s in config.seats] == [str(RANDOM_BOT)] * 2
    assert config.time_control == TimeControl(**record.time_control)
    assert len(config.prefix) == 1 and config.seed == record.seed


def test_fork_finds_a_match_in_the_database_by_unique_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.db import session_scope
    from arena.records.recording import create_match, record_result
    from tests.web.seed import add_bot, play_record

    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    ids = iter([uuid.UUID("abc10000" + "0" * 24), uuid.UUID("abc20000" + "0" * 24)])
    monkeypatch.setattr(uuid, "uuid4", lambda: next(ids))
    with session_scope(url) as s:
        here, away = add_bot(s, "here"), add_bot(s, "away")
        here.source = str(RANDOM_BOT)  # a version stored on this machine
        for _ in range(2):
            match = create_match(s, "toy", "standard", [here.id, away.id], seed=6)
            s.commit()
            record = play_record(match.id, ["here v1", "away v1"], 6)
            record_result(s, match.id, record.to_dict())
    monkeypatch.undo()
    with pytest.raises(ForkError, match="the id prefix 'abc' is ambiguous: it matches abc1"):
        load("abc", url)
    with pytest.raises(ForkError, match="no match 'fff'"):
        load("fff", url)
    original = load("abc2", url)
    assert original.record.match_id == "abc2" + "0" * 28
    assert original.sources == [str(RANDOM_BOT), None]  # /bots/N is not on this machine
    config = plan(original, 2, 1, str(RANDOM_BOT), None)
    assert config.seats[0].source == str(RANDOM_BOT)
    assert config.origin["match_id"] == original.record.match_id


def test_the_command_for_a_step() -> None:
    assert command_for("abc", 7, 1) == "arena fork abc --at 7 --seat 1 --bot YOUR_BOT_DIR"


def test_live_decisions_carry_the_chosen_options_label() -> None:
    """`arena watch` prints labels: the live event names the chosen option's label."""
    events: list[dict] = []
    config = MatchConfig(game="toy", seats=[SeatSpec("a", str(RANDOM_BOT)), SeatSpec("b", str(RANDOM_BOT))],
                         seed=12)
    run_match(config, on_event=events.append)
    decisions = [e for e in events if e["type"] == "decision"]
    assert decisions
    expected = {"pass": "keep the hand as it is", "draw": "draw a card"}
    for e in decisions:
        if e["private_choice"]:
            assert e["label"] is None and e["option"] is None
        else:
            assert e["label"] == expected.get(e["option"], f"play card {e['option'].removeprefix('play:')}")
