"""The search bot never overruns its clock: a full match at a short time control, for every
game, with the referee's real clock and the bot in its real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee import registry
from referee.engine import TimeControl
from tests.referee.helpers import RANDOM_BOT, needs_bwrap, play

ISMCTS = Path(__file__).resolve().parents[2] / "sample_bots" / "ismcts"
GAMES = [g for g in registry.game_names() if g != "toy"]
SHORT = TimeControl(decision_ms=150, bank_ms=1500)

pytestmark = needs_bwrap


@pytest.mark.parametrize("game", GAMES)
def test_a_full_match_at_a_short_time_control_has_no_timeout(game):
    record = play(game, [str(ISMCTS), str(RANDOM_BOT)], seed=3, tc=SHORT)
    assert record.forfeits == [], record.forfeits
    mine = [d for d in record.decisions if d.seat == 0]
    searched = [d for d in mine if d.comment.startswith("ISMCTS") and not d.comment.startswith("ISMCTS 0 it")]
    assert len(searched) >= 10  # it did search, not just answer at once
    # It plans half the decision's own time: nearly every decision stays inside it, so the bank
    # (a cushion for a loaded machine) is barely touched.
    within = sum(1 for d in mine if d.wall_ms <= SHORT.decision_ms)
    assert within >= 0.9 * len(mine)
    assert record.totals[0].bank_left_ms >= 0.5 * SHORT.bank_ms
    assert len(record.result["ranks"]) == 2


@pytest.mark.parametrize(
    "game",  # one game in the short form (the clock test above covers every game); all with --full
    [g if g == "solenia" else pytest.param(g, marks=pytest.mark.slow) for g in GAMES],
)
def test_the_search_bot_wins_or_plays_on_against_itself_in_every_seat(game):
    """Two search bots (so each seat's observation is searched), three players where the game
    allows: every seat answers legally and in time."""
    players = 3 if 3 in registry.get_spec(game).player_counts else 2
    record = play(game, [str(ISMCTS)] * players, seed=5, tc=SHORT)
    assert record.forfeits == [], record.forfeits
    assert all(d.comment.startswith("ISMCTS") for d in record.decisions if not d.forced)


def test_a_game_that_cannot_be_sampled_still_gets_a_legal_answer_and_the_reason():
    import time

    from arena.sdk import Turn
    from sample_bots.ismcts import bot
    from tests.toy_game import ToyState

    state = ToyState.new(2, 1)
    options = state.legal_options()
    bot.start({"game": "toy", "match_id": "m", "seat": 0})
    oid, comment = bot.act(state.observation(0), options, Turn(0, 1000, 0, "", time.perf_counter()))
    assert oid in {o.id for o in options}
    assert comment.startswith("no search: toy cannot rebuild a state from an observation")
