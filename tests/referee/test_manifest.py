"""Hosted bots in other languages: the bot.json manifest (referee/manifest.py) — what runs, what
is refused with a message the author can act on, and that uploads accept it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.intake.uploads import read_archive
from referee import bot_launch
from referee.bot_client import BotSource
from referee.manifest import EXEC_FLAG, ManifestError, launch_command, read_command
from referee.match import MatchConfig, SeatSpec, run_match
from tests.api.archives import tar_bot
from tests.referee.helpers import landlock_abi, needs_bwrap

RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot"


def manifest(tmp_path: Path, data: object) -> Path:
    (tmp_path / "bot.json").write_text(json.dumps(data) if not isinstance(data, str) else data)
    return tmp_path


def test_the_command_gets_the_address_and_the_program_is_found_under_usr(tmp_path: Path) -> None:
    bot = manifest(tmp_path, {"command": ["sh", "run.sh", "--fast"]})
    cmd = launch_command(bot, "/arena/bot", "unix:/arena/sock/bot.sock")
    assert cmd[1:] == ["run.sh", "--fast", "--address", "unix:/arena/sock/bot.sock"]
    assert Path(cmd[0]).name == "sh" and cmd[0].startswith(("/usr/", "/bin/"))


def test_bot_py_wins_over_a_manifest(tmp_path: Path) -> None:
    bot = manifest(tmp_path, {"command": ["node", "bot.js"]})
    (bot / "bot.py").write_text("")
    assert read_command(bot) is None
    assert launch_command(bot, "/in", "unix:/s")[-3:] == ["/in/bot.py", "--address", "unix:/s"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"cmd": ["node"]}, '"command" must be a list'),
        ({"command": []}, '"command" must be a list'),
        ({"command": "node bot.js"}, '"command" must be a list'),
        ({"command": ["/usr/bin/node", "bot.js"]}, "without a path"),
        ({"command": ["no-such-runtime-xyz", "bot.js"]}, "not installed"),
    ],
)
def test_a_bad_manifest_is_refused_with_what_to_fix(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ManifestError, match=message):
        read_command(manifest(tmp_path, data))


def test_a_folder_with_neither_entry_is_not_a_bot(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no bot.py"):
        BotSource.parse(str(tmp_path))
    assert BotSource.parse(str(manifest(tmp_path, {"command": ["node", "bot.js"]}))).kind == "hosted"


def test_a_manifest_naming_a_missing_runtime_forfeits_at_start_with_the_reason(tmp_path: Path) -> None:
    bot = manifest(tmp_path, {"command": ["no-such-runtime-xyz", "bot.js"]})
    record = run_match(MatchConfig(game="solenia", seats=[SeatSpec("m", str(bot)), SeatSpec("r", str(RANDOM_BOT))],
                                   seed=1, sandbox=shutil.which("bwrap") is not None))
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "start_failed")]
    assert "not installed" in record.forfeits[0].message


def test_uploads_accept_a_manifest_bot() -> None:
    members = read_archive(tar_bot({"bot.json": b'{"command": ["node", "bot.js"]}', "bot.js": b"//"}, top="kit"))
    assert sorted("/".join(m.parts) for m in members) == ["bot.js", "bot.json"]


def test_in_the_sandbox_bot_launch_restricts_first_then_runs_the_entry(tmp_path: Path) -> None:
    bot = manifest(tmp_path, {"command": ["sh", "run.sh"]})
    cmd = launch_command(bot, "/arena/bot", "unix:/s", launcher=True)
    at = cmd.index("referee.bot_launch")
    assert cmd[at - 1] == "-m" and cmd[at + 1] == EXEC_FLAG == bot_launch.EXEC_FLAG
    assert Path(cmd[at + 2]).name == "sh" and cmd[at + 3:] == ["run.sh", "--address", "unix:/s"]
    (bot / "bot.py").write_text("")
    cmd = launch_command(bot, "/arena/bot", "unix:/s", launcher=True)
    assert cmd[cmd.index("referee.bot_launch") + 1:] == ["/arena/bot/bot.py", "--address", "unix:/s"]


@needs_bwrap
def test_a_manifest_program_runs_under_the_launchers_landlock_restriction(tmp_path: Path) -> None:
    # The program replaces bot_launch by exec: the restriction must still hold for it.
    (tmp_path / "probe").mkdir(mode=0o755)  # readable by the sandbox's uid (tmp_path is 0700)
    bot = manifest(tmp_path / "probe", {"command": ["sh", "probe.sh"]})
    (bot / "probe.sh").write_text(
        'if touch /arena/sock/squat 2>/dev/null; then echo "probe:made"; else echo "probe:refused"; fi\n'
        "exit 3\n"
    )
    record = run_match(MatchConfig(game="solenia", seats=[SeatSpec("m", str(bot)), SeatSpec("r", str(RANDOM_BOT))],
                                   seed=1, sandbox=True))
    forfeit = record.forfeits[0]
    assert (forfeit.seat, forfeit.reason) == (0, "start_failed")
    assert ("probe:refused" if landlock_abi() > 0 else "probe:made") in forfeit.log_tail, forfeit.log_tail
