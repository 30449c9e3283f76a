"""`arena play`: one match from the command line, a result table, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli.play import register
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap

pytestmark = needs_bwrap


@pytest.fixture
def cli() -> click.Group:
    @click.group()
    def group() -> None:
        """test group"""

    register(group)
    return group


def test_play_repeats_one_bot_and_writes_the_record(cli: click.Group, tmp_path: Path) -> None:
    out_file = tmp_path / "m.json"
    result = CliRunner().invoke(
        cli, ["play", "toy", "--bot", str(RANDOM_BOT), "--players", "3", "--seed", "9",
              "--out", str(out_file), "--decision-ms", "500", "--bank-ms", "900"],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("seat"))
    assert [line.split()[1] for line in lines[header + 2: header + 5]] == [
        "random_bot", "random_bot#2", "random_bot#3"
    ]
    data = json.loads(out_file.read_text())
    assert data["seed"] == 9 and data["players"] == 3
    assert data["time_control"] == {"decision_ms": 500, "bank_ms": 900}
    replayed = CliRunner().invoke(cli, ["replay", str(out_file)])
    assert replayed.exit_code == 0, replayed.output


def test_play_reports_a_forfeit(cli: click.Group) -> None:
    result = CliRunner().invoke(
        cli, ["play", "toy", "--bot", str(RANDOM_BOT), "--bot", str(HOSTILE / "crash_at_start")]
    )
    assert result.exit_code == 1, result.output  # a forfeit fails the command ...
    assert "forfeit: start_failed" in result.output
    assert "giving up before serving" in result.output  # the crash log's tail
    allowed = CliRunner().invoke(
        cli, ["play", "toy", "--bot", str(RANDOM_BOT), "--bot", str(HOSTILE / "crash_at_start"),
              "--allow-forfeit"]
    )
    assert allowed.exit_code == 0, allowed.output  # ... unless the author allows it
    assert "forfeit: start_failed" in allowed.output


def test_play_without_forfeit_exits_0_and_builtin_names_work_from_any_folder(
    cli: click.Group, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not the repository: the names resolve to the installed bots
    result = CliRunner().invoke(cli, ["play", "solenia", "--bot", "greedy", "--bot", "random",
                                      "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "solenia_greedy" in result.output and "random_bot" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "no/such/bot"], "--bot no/such/bot: bot 'no/such/bot' is neither a folder"),
        (["--bot", "random", "--out", "missing-dir/x.json"], "--out missing-dir/x.json: the folder"),
        (["--bot", "random", "--out", "."], "is a directory"),
        (["--bot", "random", "--bot", "frobnicate"], "--bot frobnicate: bot 'frobnicate' is neither"),
    ],
)
def test_play_checks_bots_and_the_output_before_playing(
    cli: click.Group, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["play", "toy", *args, "--players", "2"])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "match " not in result.output and "seed" not in result.output  # nothing was played
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--bot", str(RANDOM_BOT)], "unknown game 'chess'"),
        (["play", "toy", "--bot", str(RANDOM_BOT)], "not 1"),
        (["play", "toy", "--bot", "/no/such/bot", "--players", "2"], "neither a folder"),
        (["play", "toy", "--bot", str(RANDOM_BOT), "--bot", "x:0"], "port must be"),
        (["play", "toy", "--bot", "a", "--bot", "b", "--players", "3"], "one --bot per seat"),
        (["play", "toy", "--bot", str(RANDOM_BOT), "--players", "2", "--variant", "nope"],
         "no variant 'nope'"),
    ],
)
def test_play_user_mistakes_are_one_clear_line(cli: click.Group, args, message: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("game", "variant", "automaton"),
                         [("black_angel", "solo-d15", "Hal"), ("solenia", "summer", "the virtual player")])
def test_play_solo_says_whether_the_bot_beat_the_automaton(
        cli: click.Group, tmp_path: Path, game: str, variant: str, automaton: str) -> None:
    # a solo result is ranked against the automaton: the table's rank and a closing line say it
    out_file = tmp_path / "solo.json"
    result = CliRunner().invoke(
        cli, ["play", game, "--bot", str(RANDOM_BOT), "--players", "1", "--variant", variant,
              "--seed", "3", "--out", str(out_file)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out_file.read_text())
    details = data["result"]["details"]
    won = data["result"]["ranks"] == [1]
    assert details["automaton"] == automaton and won == details["beat_automaton"]
    words = "beat" if details["outcome"].startswith("beat") else ("tied with" if won else "lost to")
    assert f"random_bot {words} {automaton}" in result.output
    replayed = CliRunner().invoke(cli, ["replay", str(out_file)])
    assert replayed.exit_code == 0 and f"{words} {automaton}" in replayed.output, replayed.output
