"""A tournament match the host voided (``referee.match.HostOverloaded``: a seat's deadline passed
while the host kept its bot waiting for a CPU) is put back in the queue to be played again; it is
not recorded, rated nor charged to anyone (issue 26, item 8; docs/referee.md "Whose time is it")."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.cli.author import _seat_text
from arena.db import Match, session_scope
from arena.db.models import MatchSeat, Rating
from arena.intake import bots
from arena.records import recording
from arena.server import convert, results
from arena.workers import tasks
from referee import sandbox
from referee._proto import arena_pb2 as pb
from tests.referee.load import Starver, hogs

CPU_START = Path(__file__).resolve().parents[1] / "referee" / "bots" / "cpu_start"
RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "random_bot"

pytestmark = [
    pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to starve one"),
]


def test_a_match_the_host_voided_goes_back_to_the_queue_unrated(sqlite_url: str, tmp_path: Path) -> None:
    # 3 s of CPU in StartMatch against the 2 s start budget, kept on a CPU with 16 busy loops:
    # at the hard cap (8 s) its own time is far under the budget — the host's fault, not its.
    slow = tmp_path / "cpu_start"
    shutil.copytree(CPU_START, slow)
    (slow / "spin_ms").write_text("3000")
    with session_scope() as s:
        ids = [bots.register_version(s, "toy", str(slow), name="starved").id,
               bots.register_version(s, "toy", str(RANDOM_BOT), name="random").id]
        mid = recording.create_match(s, "toy", "base", ids, seed=5).id
        before = {r.bot_version_id: (r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))}
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        outcome = tasks.play_match_now(mid)
    assert outcome.status == "pending" and outcome.retry_in is not None  # the task retries it
    with session_scope() as s:
        match = s.get(Match, mid)
        assert match.status == "pending" and match.attempts == 1
        assert "server_error" in match.error and "kept the bot waiting for a CPU" in match.error
        assert match.record is None and match.rating_seq is None
        seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == mid)).all()
        assert [(seat.rank, seat.forfeit) for seat in seats] == [(None, None), (None, None)]
        after = {r.bot_version_id: (r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))}
        assert match.voids == "1"  # one void, at seat 0's decisions (issue 35)
        assert [seat.voids for seat in convert.match_summary(match).seats] == [1, 0]
        listed = results.list_matches(s, pb.ListMatchesRequest()).matches  # ListMatches' own query
        assert [seat.voids for seat in listed[0].seats] == [1, 0]
    assert after == before
    # The next try is voided at seat 0 again: not a third try, seat 0's forfeit. The match is
    # recorded and rated as played (issue 35: a void is not a free retry for its seat).
    with hogs(16, limit_s=60, cpu=0) as hog_pids, Starver(0, exclude=hog_pids):
        outcome = tasks.play_match_now(mid)
    assert outcome.status == "recorded"
    with session_scope() as s:
        match = s.get(Match, mid)
        assert match.status == "done" and match.attempts == 2 and match.rating_seq is not None
        (forfeit,) = match.forfeits
        assert (forfeit["seat"], forfeit["reason"]) == (0, "void_limit")
        assert "void 1 time(s) before at this bot's decisions" in forfeit["message"]
        summary = convert.match_summary(match)
        assert [(seat.forfeit_reason, seat.voids) for seat in summary.seats] == [("void_limit", 1), ("", 0)]
        assert "(1 void try at its decisions)" in _seat_text(summary.seats[0], True)


def test_void_counts_per_seat_are_read_and_written_as_the_column_keeps_them() -> None:
    assert recording.read_voids(None) == {} and recording.read_voids("") == {}
    assert recording.read_voids("1,0,2") == {0: 1, 2: 2}
    assert recording.read_voids("x,-1, 3") == {2: 3}  # unreadable parts count as none
    assert recording.write_voids({}) is None and recording.write_voids({1: 0}) is None
    assert recording.write_voids({2: 1}) == "0,0,1"
    assert recording.read_voids(recording.write_voids({0: 2, 3: 1})) == {0: 2, 3: 1}
