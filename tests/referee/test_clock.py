"""Time control: a slow decision draws its excess from the seat's bank; past the bank, the seat
forfeits on time."""

from __future__ import annotations

import pytest

from referee.engine import TimeControl
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap, play

SLOW = str(HOSTILE / "slow")

pytestmark = needs_bwrap


def test_slow_decisions_draw_on_the_bank() -> None:
    # The slow bot thinks 150 ms per decision against a 100 ms limit: ~50 ms from the bank each.
    tc = TimeControl(decision_ms=100, bank_ms=2000)
    record = play("toy", [str(RANDOM_BOT), SLOW], tc=tc, seed=4)
    assert record.forfeits == []
    mine = [d for d in record.decisions if d.seat == 1]
    # The bank pays the excess of the bot's own time: the wall, less what a busy host kept it
    # waiting for a CPU (referee/fair_clock.py). Its sleep is its own, so >= 50 ms each.
    wall_bank = 2000 - sum(max(0.0, d.wall_ms - 100) for d in mine)
    totals = record.totals[1]
    assert totals.decisions == len(mine)
    assert wall_bank - 0.01 <= totals.bank_left_ms <= 2000 - 40 * len(mine)
    assert totals.time_used_ms == pytest.approx(sum(d.wall_ms for d in mine), abs=0.01)
    assert all(d.wall_ms >= 150 for d in mine)
    # The fast seat kept its whole bank.
    assert record.totals[0].bank_left_ms == 2000


def test_an_exhausted_bank_is_a_timeout_forfeit() -> None:
    # 150 ms per decision, 100 ms allowed, 120 ms of bank: by the third decision it is out of time
    # (sooner on a loaded machine, where each decision overruns by more).
    tc = TimeControl(decision_ms=100, bank_ms=120)
    record = play("toy", [SLOW, str(RANDOM_BOT)], tc=tc, seed=4)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, "timeout")]
    forfeit = record.forfeits[0]
    answered = [d for d in record.decisions if d.seat == 0 and not d.forced]
    assert len(answered) <= 2  # none when the very first answer overran the whole bank
    bank_before = 120 - sum(d.wall_ms - 100 for d in answered)
    cut_off = record.decisions[forfeit.decision]
    assert cut_off.seat == 0 and cut_off.forced
    assert cut_off.wall_ms >= 100 + bank_before - 1  # it was given its whole remaining time
    assert record.totals[0].bank_left_ms == 0
    assert record.result["ranks"] == [2, 1]


def test_a_seat_with_a_clock_of_its_own() -> None:
    """``MatchConfig.seat_time_controls`` (a person's seat, arena.play.human): the slow seat with a
    long clock of its own plays the whole game while the same slow bot on the match's clock
    forfeits on time; each seat's clock is in the record."""
    tc = TimeControl(decision_ms=100, bank_ms=0)
    own = {0: TimeControl(decision_ms=5000, bank_ms=0)}
    record = play("toy", [SLOW, SLOW], tc=tc, seed=4, seat_time_controls=own)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(1, "timeout")]
    assert all(not d.forced for d in record.decisions if d.seat == 0)
    assert record.seats[0]["time_control"] == {"decision_ms": 5000, "bank_ms": 0}
    assert "time_control" not in record.seats[1]
    assert record.time_control == {"decision_ms": 100, "bank_ms": 0}


def test_a_clock_for_a_seat_the_match_lacks_is_refused() -> None:
    from referee.match import MatchSetupError

    with pytest.raises(MatchSetupError, match="names a seat"):
        play("toy", [SLOW, SLOW], seat_time_controls={2: TimeControl(100, 0)})
