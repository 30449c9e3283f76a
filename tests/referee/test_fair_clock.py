"""The fair clock (referee/fair_clock.py, docs/referee.md "Whose time is it"): a bot is judged on
its own time, not on the time a busy host kept it waiting for a CPU — and a bot that is slow on
its own (sleeping, or burning CPU) is forfeited as before, on a quiet host and a loaded one.

The host is made busy with real processes (tests/referee/load.py): busy loops, and, to keep a
bot waiting for a CPU for certain, its sandbox pinned to the one CPU where the loops are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.engine import TimeControl
from referee.fair_clock import RunQueueWaits, own_time_ms
from referee.match import HostOverloaded
from tests.referee.helpers import RANDOM_BOT, needs_bwrap, play
from tests.referee.load import Starver, hogs

pytestmark = needs_bwrap

CPU_START = Path(__file__).parent / "bots" / "cpu_start"
two_cpus = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to starve one")


def test_own_time_is_the_wall_less_the_waits_never_less_than_the_cpu() -> None:
    assert own_time_ms(1000.0, 100.0, 850.0) == 150.0  # kept waiting: charged what it had
    assert own_time_ms(1000.0, 100.0, 0.0) == 1000.0  # slept or blocked: all of it is its own
    assert own_time_ms(1000.0, 700.0, 850.0) == 700.0  # never less than the CPU it used
    assert own_time_ms(1000.0, 2500.0, 0.0) == 1000.0  # nor more than the wall (threads)
    assert own_time_ms(1000.0, None, 850.0) == 1000.0  # unmeasured (remote): the wall


@two_cpus
def test_waits_count_for_a_process_kept_off_the_cpu_not_for_a_sleeping_one() -> None:
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
                               stdout=subprocess.PIPE)
    try:
        assert sleeper.stdout.readline() == b"up\n"  # past its start-up: asleep from now on
        with hogs(4, limit_s=20, cpu=0) as hog_pids:
            os.sched_setaffinity(spinner.pid, {0})
            waits = {p.pid: RunQueueWaits(p.pid) for p in (spinner, sleeper)}
            marks = {pid: w.mark() for pid, w in waits.items()}
            time.sleep(1.0)
            spun = waits[spinner.pid].waited_ms(marks[spinner.pid])
            slept = waits[sleeper.pid].waited_ms(marks[sleeper.pid])
            assert len(hog_pids) == 4
        # One of five loops on one CPU: it waits ~80% of the time; the sleeper never.
        assert spun > 500, spun
        assert slept < 50, slept
    finally:
        for p in (spinner, sleeper):
            p.kill()
            p.wait()


@two_cpus
def test_a_start_slowed_by_the_host_is_waited_for(tmp_path) -> None:
    # 300 ms of CPU in StartMatch against a 1 s budget; kept on a CPU with 8 busy loops it gets
    # about a ninth of it, ~2.7 s of wall: over the budget in wall time, well under in its own.
    bot = cpu_start(tmp_path, spin_ms="300")
    with hogs(8, limit_s=40, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        record = play("toy", [bot, str(RANDOM_BOT)], start_budget_ms=1000)
    assert record.forfeits == []
    assert record.totals[0].start_ms > 1000


@two_cpus
def test_a_start_the_host_keeps_waiting_past_the_cap_voids_the_match(tmp_path) -> None:
    # 3 s of CPU against a 1 s budget, on a CPU with 12 busy loops (a 13th of it): at the hard
    # cap (4 x 1 s) its own time is still under the budget, so nobody can tell whether it would
    # have made it: the match is void.
    bot = cpu_start(tmp_path, spin_ms="3000")
    with hogs(12, limit_s=40, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        with pytest.raises(HostOverloaded) as caught:
            play("toy", [bot, str(RANDOM_BOT)], start_budget_ms=1000)
    assert caught.value.code == "server_error" and caught.value.decision == 0
    assert "kept the bot waiting for a CPU" in str(caught.value)


@two_cpus
def test_decisions_slowed_by_the_host_are_not_charged_to_the_bank(tmp_path) -> None:
    # 60 ms of CPU per decision against 250 ms: on a CPU with 8 busy loops each decision takes
    # several times that in wall time, often past the limit, but its own time stays under it.
    bot = cpu_start(tmp_path, spin_ms="0", act_spin_ms="60")
    tc = TimeControl(decision_ms=250, bank_ms=250)
    with hogs(8, limit_s=40, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        record = play("toy", [bot, str(RANDOM_BOT)], tc=tc)
    assert record.forfeits == []
    wall_excess = sum(max(0.0, d.wall_ms - 250) for d in record.decisions if d.seat == 0)
    bank_left = record.totals[0].bank_left_ms
    print(f"wall past the limit: {wall_excess:.0f} ms; bank left: {bank_left:.0f} ms of 250")
    assert wall_excess > 100  # the host did slow it down: a wall clock would draw that much
    assert bank_left > 250 - wall_excess / 2  # the bank paid for less than half of it


def test_a_start_that_burns_its_own_cpu_is_a_start_timeout_on_a_loaded_host(tmp_path) -> None:
    # Four threads burning 5 s each: its own CPU passes the 500 ms budget however busy the host.
    bot = cpu_start(tmp_path, spin_ms="5000", threads="4")
    with hogs(6, limit_s=40):
        record = play("toy", [bot, str(RANDOM_BOT)], start_budget_ms=500)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "start_timeout")]
    assert "start budget of 500 ms" in record.forfeits[0].message


@pytest.mark.parametrize("name, reason, kwargs", [
    ("sleeper", "timeout", {"tc": TimeControl(decision_ms=300, bank_ms=300)}),
    ("slow", "timeout", {"tc": TimeControl(decision_ms=100, bank_ms=120)}),
    ("slow_start", "start_timeout", {"startup_ms": 2000}),
])
def test_a_bot_slow_on_its_own_is_forfeited_on_a_loaded_host(hostile, name, reason, kwargs) -> None:
    # They sleep: a sleeping bot waits in no run queue, so a busy host forgives it nothing.
    with hogs(6, limit_s=40):
        record = play("toy", [hostile(name), str(RANDOM_BOT)], seed=4, **kwargs)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, reason)]
    assert record.result["ranks"] == [2, 1]


def cpu_start(tmp_path: Path, **settings: str) -> str:
    """A copy of the cpu_start bot with its settings files next to bot.py."""
    dest = tmp_path / "cpu_start"
    shutil.copytree(CPU_START, dest)
    for name, text in settings.items():
        (dest / name).write_text(text)
    return str(dest)
