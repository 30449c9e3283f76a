"""Shared helpers of the referee tests: where the bots are, how to play a match, which
sandboxed processes exist."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from referee import sandbox
from referee.engine import TimeControl
from referee.match import MatchConfig, SeatSpec, run_match
from referee.record import MatchRecord

HOSTILE = Path(__file__).parent / "hostile_bots"
RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot"

needs_bwrap = pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none). Bots run on this same kernel."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return max(0, libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1)))


def leftover_pids(uids: list[int]) -> list[int]:
    """Live processes of sandbox uids that no referee holds any more: survivors of a match.

    Only the given uids are looked at (other test runs may share this machine), and a uid some
    other referee has leased again since is skipped."""
    return [pid for uid in set(uids) if not sandbox.uid_is_leased(uid)
            for pid in sandbox.pids_of_uid(uid)]


def sandbox_uids_under(root_pid: int) -> set[int]:
    """The sandbox uids of processes descending from ``root_pid`` (another referee process)."""
    lo, hi = sandbox._uid_range()
    uids = set()
    for pid in sandbox.pids_of_uids(lo, hi):
        try:
            uid, cur = os.stat(f"/proc/{pid}").st_uid, pid
        except OSError:  # it exited since it was listed
            continue
        while cur > 1:
            if cur == root_pid:
                uids.add(uid)
                break
            try:
                with open(f"/proc/{cur}/stat", "rb") as fh:
                    data = fh.read()
            except OSError:
                break
            cur = int(data[data.rindex(b")") + 2:].split()[1])
    return uids


def play(
    game: str,
    sources: list[str],
    seed: int = 1,
    tc: TimeControl | None = None,
    variant: str | None = None,
    **kwargs,
) -> MatchRecord:
    seats = [SeatSpec(f"seat{i}", s) for i, s in enumerate(sources)]
    return run_match(
        MatchConfig(game=game, seats=seats, seed=seed, variant=variant, time_control=tc, **kwargs)
    )


def sigkill_and_expect_no_survivors(referee: subprocess.Popen, uids: set[int]) -> None:
    """SIGKILL a referee process (no ``finally`` of it runs) and check that every sandboxed
    process of ``uids`` died with it, and that its socket folders get cleaned up."""
    try:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
        deadline = time.monotonic() + 3
        while leftover_pids(list(uids)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert leftover_pids(list(uids)) == []
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
    # Nobody was left to delete the killed referee's socket folders: the next referee does
    # (another referee on this machine may already have done it).
    sandbox.remove_stale_socket_dirs()
    assert sandbox.socket_dirs_of(referee.pid) == []
