"""A forfeited seat's fallback disturbs the others as little as the rules allow (issue 15, item 3).

black-angel.ko.txt [4]: "시퀀스 A를 수행할 수 없다면, 시퀀스 B를 수행해야 합니다" — B (which advances
the Black Angel and so shortens everyone's game) only when A is impossible; [5] 중요사항: a
forced B in the final turn may be skipped.

The bound: with seat 0 forfeited from decision 0 and the greedy bot in the other seats, the mean
number of rounds stays within 20% of the all-greedy games over the same seeds (2-4 players,
20 seeds; 200 with --full). The old fallback (sequence B every turn) breaks it: 4-player games
drop from about 13 rounds to about 9. Measured (100 seeds): 2 players 22.8 -> 19.7 rounds (a
forfeited seat rolls only its three workstation dice and gains no resources to buy more, so it
reaches its forced B every fourth turn, sooner than a playing seat), 3 players 16.2 -> 16.0,
4 players 13.3 -> 13.1.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from arena.sdk import Option
from referee.black_angel.state import BlackAngelState
from sample_bots.black_angel_greedy.bot import act
from tests.black_angel.helpers import blank, give_die, ids, play

BOUND = 0.20
ORANGE, GRAY, GREEN = 0, 1, 2


def _rounds(players: int, seed: int, forfeit: Callable[[BlackAngelState], str] | None) -> int:
    s = BlackAngelState.new(players, seed, "base")
    while not s.is_over():
        seat = s.to_move()
        assert seat is not None
        if seat == 0 and forfeit is not None:
            s.apply(forfeit(s))
        else:
            s.apply(act(s.observation(seat), [Option(o.id, o.label) for o in s.legal_options()]))
    return s.round


def _b_first(s: BlackAngelState) -> str:
    """The old fallback: the first 'safe' id, which put sequence B before A."""
    opts = s.option_ids()
    return next((x for x in ("done", "nocard", "none", "noplace", "noboost", "B", "pass") if x in opts), opts[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_forfeited_seat_keeps_the_game_length(players: int, full_run: bool) -> None:
    seeds = range(200 if full_run else 20)
    normal = statistics.mean(_rounds(players, seed, None) for seed in seeds)
    forfeited = statistics.mean(_rounds(players, seed, BlackAngelState.fallback_option) for seed in seeds)
    assert abs(forfeited - normal) <= BOUND * normal, (players, normal, forfeited)


def test_the_bound_catches_a_fallback_that_takes_sequence_b() -> None:
    seeds = range(20)
    normal = statistics.mean(_rounds(4, seed, None) for seed in seeds)
    b_first = statistics.mean(_rounds(4, seed, _b_first) for seed in seeds)
    assert normal - b_first > BOUND * normal, (normal, b_first)


def test_fallback_takes_sequence_a_and_the_quietest_action() -> None:
    # [4] 시퀀스 A: no card (A1 is optional), the seat's own lowest die, destroy/repair/discovery
    # stopped at once: nothing is taken from or given to another seat
    s = blank(2)
    give_die(s, 0, GREEN, 3)
    give_die(s, 0, GRAY, 1)
    give_die(s, 1, GRAY, 3)
    s.res[0] = 2
    s.rav_on[4] = [120]
    assert ids(s)[:2] == ["A", "B"] and s.fallback_option() == "A"
    play(s, "A")
    if s.phase == "a_card":
        assert s.fallback_option() == "nocard"
        play(s, "nocard")
    assert s.fallback_option() == "use:1"  # the gray 1, never buying seat 1's die
    play(s, "use:1")
    assert s.fallback_option() == "act:3"  # repair, not the command of action 4
    play(s, "act:3")
    while not (s.phase == "turn" and s.seat == 1):
        play(s, s.fallback_option())
    assert s.rav_on[4] == [120] and s.res == [2, s.res[1]] and s.advances == 0


def test_fallback_passes_a_forced_final_sequence_b() -> None:
    # [5] 중요사항: 게임의 최종 턴에 시퀀스 B를 수행해야 한다면, 턴을 진행하지 않고 걸러도 됩니다
    s = blank(2)
    s.end_trig, s.last_round = True, s.round
    s._opts = None
    assert ids(s) == ["B", "pass"] and s.fallback_option() == "pass"
