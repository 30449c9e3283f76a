"""The hardest path: the referee itself is killed with SIGKILL mid-match (no ``finally`` runs).
bwrap's --die-with-parent must still take every sandboxed process down with it, and the same
parent-death signal an unsandboxed bot (``arena connect``'s)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.referee.helpers import needs_bwrap, sandbox_uids_under, sigkill_and_expect_no_survivors

pytestmark = needs_bwrap

PROJECT = Path(__file__).resolve().parents[2]

SCRIPT = f"""
import sys
sys.path.insert(0, {str(PROJECT)!r})
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from referee import sandbox
from tests.referee.helpers import HOSTILE
sys.path.insert(0, {str(PROJECT / "tests")!r})
from tests.toy_game import ToyState
from referee import registry
registry.register(ToyState)
slow = str(HOSTILE / "slow")
run_match(MatchConfig("toy", [SeatSpec("a", slow), SeatSpec("b", slow)], seed=1))
"""


def test_sigkill_of_the_referee_takes_the_sandboxes_down() -> None:
    referee = subprocess.Popen([sys.executable, "-c", SCRIPT], cwd=PROJECT)
    try:
        deadline = time.monotonic() + 10
        uids: set[int] = set()
        while len(uids) < 2 and time.monotonic() < deadline:
            uids = sandbox_uids_under(referee.pid)
            time.sleep(0.02)
        assert len(uids) == 2, "the bots never started"
        time.sleep(0.3)  # mid-match: the slow bots think 150 ms per decision
        assert referee.poll() is None
    except BaseException:
        referee.kill()
        referee.wait()
        raise
    sigkill_and_expect_no_survivors(referee, uids)


UNSANDBOXED = f"""
import sys, time
sys.path.insert(0, {str(PROJECT)!r})
from referee.sandbox import BotProcess
from tests.referee.helpers import RANDOM_BOT
process = BotProcess(RANDOM_BOT, sandbox=False)  # as `arena connect` starts the owner's bot
print(process.bot_pid(), flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    """Running, not a zombie awaiting its reaper."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_sigkill_of_the_launcher_takes_an_unsandboxed_bot_down() -> None:
    # `arena connect` runs the owner's bot unsandboxed; killed with SIGKILL, it left the bot
    # running (a `node bot.js` per run of the Node kit's test). It now dies with its launcher.
    launcher = subprocess.Popen([sys.executable, "-c", UNSANDBOXED], cwd=PROJECT, stdout=subprocess.PIPE)
    try:
        bot = int(launcher.stdout.readline())
        time.sleep(0.3)
        assert _alive(bot), "the bot never started"
    finally:
        launcher.kill()
        launcher.wait()
    deadline = time.monotonic() + 5
    while _alive(bot) and time.monotonic() < deadline:
        time.sleep(0.02)
    survived = _alive(bot)
    if survived:
        os.kill(bot, signal.SIGKILL)
    assert not survived, "the unsandboxed bot outlived its launcher"
