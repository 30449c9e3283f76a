"""The sample greedy bot against the random bot (issue 10), and the peaceful solo comparison.

The default run plays a short form; ``--full`` plays 200 seeds. Measured figures are in
``referee/orbital/RULES_NOTES.md``.
"""

from __future__ import annotations

import random

import pytest

from referee.orbital.state import OrbitalState
from sample_bots.orbital_greedy.bot import choose


def play(players: int, variant: str, seed: int, greedy: set[int]) -> OrbitalState:
    st = OrbitalState.new(players, seed, variant)
    rnd = random.Random(seed * 7 + 1)
    while not st.is_over():
        seat = st.to_move()
        assert seat is not None
        ids = st.option_ids()
        st.apply(choose(st.observation(seat), ids) if seat in greedy else rnd.choice(ids))
    return st


def test_greedy_beats_random_in_two_player_games(full_run: bool) -> None:
    seeds = 200 if full_run else 20
    wins = 0
    for seed in range(seeds):
        g = seed % 2
        st = play(2, "standard", seed, {g})
        wins += st.vp[g] > st.vp[1 - g]
    assert wins >= 0.9 * seeds, f"greedy won {wins}/{seeds}"


def test_greedy_against_four_random_bots(full_run: bool) -> None:
    """One greedy seat (rotating) against four random seats.

    Measured over 200 seeds: the greedy bot has the most VP outright in 145 games (72.5%) and
    more VP than a given random seat in 704 of 800 pairings (88%) — short of the issue's 90% wins
    (RULES_NOTES.md). The test holds the measured level so a regression shows.
    """
    seeds = 200 if full_run else 10
    wins = pairs = 0
    for seed in range(seeds):
        g = seed % 5
        st = play(5, "standard", seed, {g})
        others = [st.vp[a] for a in range(5) if a != g]
        wins += st.vp[g] > max(others)
        pairs += sum(st.vp[g] > v for v in others)
    assert wins >= 0.6 * seeds, f"greedy won {wins}/{seeds}"
    assert pairs >= 0.8 * 4 * seeds, f"greedy beat {pairs}/{4 * seeds} random seats"


def test_greedy_reaches_22_in_the_peaceful_solo_more_often_than_random(full_run: bool) -> None:
    # 1인 규칙 » 평화 버전: 22점 이상을 달성했다면 승리. The short form also compares average VP,
    # because a win (22+) is rare enough that a handful of seeds may show none.
    seeds = 200 if full_run else 8
    greedy = [play(1, "peaceful", s, {0}) for s in range(seeds)]
    rand = [play(1, "peaceful", s, set()) for s in range(seeds)]
    g_won = sum(st.result().details["won"] for st in greedy)
    r_won = sum(st.result().details["won"] for st in rand)
    assert sum(st.vp[0] for st in greedy) > sum(st.vp[0] for st in rand)
    if full_run:
        assert g_won > r_won, f"greedy {g_won}/{seeds}, random {r_won}/{seeds}"
    else:
        assert g_won >= r_won


@pytest.mark.slow
def test_greedy_beats_the_bot_players_more_often_than_random() -> None:
    # 1인 규칙 » 경쟁 버전: the bot players are strong (2 MC per unusable card, 5 cards a year)
    seeds = 100
    greedy = sum(play(1, "competitive", s, {0}).result().details["won"] for s in range(seeds))
    rand = sum(play(1, "competitive", s, set()).result().details["won"] for s in range(seeds))
    assert greedy > rand and greedy >= 0.1 * seeds, f"greedy {greedy}/{seeds}, random {rand}/{seeds}"
