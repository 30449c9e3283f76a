"""Qualification on a busy host (issue 26, item 8): the sample bots qualify while the host is
loaded; a bot slowed only by the host is not refused; a qualification match the host voided
(``HostOverloaded``) is played again, and when the host keeps voiding it the submission is
refused as ``server_error`` with a message that puts the fault on the server, not the bot —
unless the voids were twice at the candidate's decisions: that is its ``void_limit`` forfeit
(issue 35: a void is not a free retry for the bot that caused it).

The load is real (tests/referee/load.py): busy loops at nice 0, and for the starved cases the
bots' sandboxes kept on the one CPU where the loops run."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from arena.intake.qualification import qualify
from referee import sandbox
from tests.referee.load import Starver, hogs

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
CPU_START = Path(__file__).resolve().parents[1] / "referee" / "bots" / "cpu_start"

pytestmark = pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")
two_cpus = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to starve one")


def cpu_start(tmp_path: Path, spin_ms: int) -> str:
    dest = tmp_path / "cpu_start"
    shutil.copytree(CPU_START, dest)
    (dest / "spin_ms").write_text(str(spin_ms))
    return str(dest)


@pytest.mark.parametrize("bot", ["random_bot", "black_angel_greedy"])
def test_the_sample_bots_qualify_on_a_loaded_host(bot: str) -> None:
    with hogs(8, limit_s=60):
        outcome = qualify("black_angel", str(SAMPLES / bot), seed=11)
    assert outcome.passed, (outcome.kind, outcome.message)


@two_cpus
def test_a_bot_slowed_only_by_the_host_qualifies(tmp_path: Path) -> None:
    # 300 ms of work in StartMatch against a 1 s budget, kept on a CPU with 8 busy loops: some
    # 2.7 s of wall time. Judged on the wall, this is the start_timeout refusal.
    bot = cpu_start(tmp_path, 300)
    with hogs(8, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        outcome = qualify("toy", bot, seed=3, start_budget_ms=1000, attempts=1)
    assert outcome.passed, (outcome.kind, outcome.message)
    assert outcome.record["totals"][0]["start_ms"] > 1000


@two_cpus
def test_a_qualification_the_host_voided_is_played_again(tmp_path: Path, caplog) -> None:
    # 300 ms of work in StartMatch against a 1 s budget. In the first match the bots are kept on
    # a CPU with 16 busy loops: a 17th of it is not enough to judge them by the hard cap (4 s),
    # so that match is void. The loops stop with it; the second match is played and passes.
    bot = cpu_start(tmp_path, 300)
    caplog.set_level(logging.WARNING, "arena.intake.qualification")
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids, first_only=True) as starver:
        threading.Thread(target=lambda: starver.first_done.wait(60) and _kill(hog_pids), daemon=True).start()
        outcome = qualify("toy", bot, seed=3, start_budget_ms=1000, attempts=2, pauses_s=(0.5,))
    assert "(attempt 1 of 2) was void: server_error" in caplog.text
    assert outcome.passed, (outcome.kind, outcome.message)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@two_cpus
def test_a_qualification_the_host_keeps_voiding_is_refused_as_a_server_error(tmp_path: Path) -> None:
    bot = cpu_start(tmp_path, 300)
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        outcome = qualify("toy", bot, seed=3, start_budget_ms=1000, attempts=1)
    assert not outcome.passed
    assert outcome.kind == "server_error"
    assert "the server was too busy to judge the bot's clock fairly: 1 qualification match(es) were void" in outcome.message
    assert "this says nothing about the bot" in outcome.message


@two_cpus
def test_a_second_void_at_the_candidates_decisions_refuses_it_as_void_limit(tmp_path: Path, caplog) -> None:
    # Kept starved in every try: the first is void at the candidate's start, the second would
    # be too, so the candidate forfeits it (void_limit) and is refused, with both in the message.
    bot = cpu_start(tmp_path, 300)
    caplog.set_level(logging.WARNING, "arena.intake.qualification")
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        outcome = qualify("toy", bot, seed=3, start_budget_ms=1000, attempts=3, pauses_s=(0.2,))
    assert "(attempt 1 of 3) was void: server_error: seat 0" in caplog.text
    assert "(attempt 2 of 3)" not in caplog.text  # the second try was not void: seat 0 forfeited
    assert not outcome.passed and outcome.kind == "void_limit", (outcome.kind, outcome.message)
    assert outcome.message.startswith("the match was voided again at this bot's decisions (decision 0)")
    assert "void 1 time(s) before" in outcome.message
