"""The hardest path: the referee itself is killed with SIGKILL mid-match (no ``finally`` runs).
bwrap's --die-with-parent must still take every sandboxed process down with it."""

from __future__ import annotations

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
