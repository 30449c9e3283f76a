"""The search itself: it answers one of the given options, honours its budget, is reproducible,
and its values reward a lead and a win (its strength is measured by `arena bench search`)."""

from __future__ import annotations

import random
import time

import orjson
import pytest

from referee import registry
from sample_bots.ismcts.player import decide
from sample_bots.ismcts.search import final_values, reward_from_points


def _position(game: str, steps: int, seed: int = 4):
    st = registry.get_game(game).new(2, seed, None)
    r = random.Random(seed)
    for _ in range(steps):
        st.apply(r.choice(st.option_ids()))
    while len(st.option_ids()) < 2:
        st.apply(st.option_ids()[0])
    seat = st.to_move()
    return st, seat, orjson.loads(orjson.dumps(st.observation(seat)))


@pytest.mark.parametrize("game", ["black_angel", "orbital", "solenia"])
def test_budget_is_honoured_and_the_answer_is_legal(game):
    st, _, obs = _position(game, 12)
    legal = st.option_ids()
    late = decide(game, obs, legal, time.perf_counter() - 1.0, seed=1)
    assert late.iterations == 1 and late.option_id in legal  # out of time: one iteration, still legal
    capped = decide(game, obs, legal, time.perf_counter() + 60.0, seed=1, max_iterations=150)
    assert capped.iterations == 150 and capped.option_id in legal
    assert sum(capped.visits.values()) == 150 and set(capped.visits) <= set(legal)
    # Only the options it was given are ever answered, even if the sample offers more.
    narrowed = decide(game, obs, legal[:2], time.perf_counter() + 60.0, seed=2, max_iterations=60)
    assert narrowed.option_id in legal[:2]


def test_the_same_seed_gives_the_same_choice():
    st, _, obs = _position("solenia", 20)
    legal = st.option_ids()
    a = decide("solenia", obs, legal, time.perf_counter() + 60.0, seed=9, max_iterations=120)
    b = decide("solenia", obs, legal, time.perf_counter() + 60.0, seed=9, max_iterations=120)
    assert (a.option_id, a.visits) == (b.option_id, b.visits)


def test_orbital_leaf_values_follow_vp_majorities_and_the_station():
    """The Orbital leaf value (the greedy bot's station value) prefers the seat ahead in VP, in a
    colour majority (한 해의 끝 1. 승점 획득) and in modules, and a finished game by its VP."""
    from referee.orbital.state import P_OVER
    from sample_bots.ismcts.heuristics import values_for

    st, _, _ = _position("orbital", 30)
    values, settings = values_for("orbital", st)
    assert settings.rollout_depth < 100  # scored after a short playout, not played to the end
    even = st.clone()
    even.vp = [10, 10]
    even.mods = [[m[:] for m in even.mods[0]], [m[:] for m in even.mods[0]]]
    even.hands = [[], []]
    even.known = [[], []]
    even.mc = [5, 5]
    even.crew = [1, 1]
    even.core = [even.core[0]] * 2
    base = values(even)
    assert base[0] == pytest.approx(base[1])
    ahead = even.clone()
    ahead.vp = [13, 10]
    v = values(ahead)
    assert v[0] > 0.6 > 0.4 > v[1]
    over = even.clone()
    over.phase = P_OVER
    over.vp = [20, 25]
    assert values(over)[1] > 0.75 > values(over)[0]


def test_values_reward_the_lead_and_the_win():
    lead = reward_from_points([30.0, 20.0], scale=4.0)
    assert lead[0] > 0.9 and lead[1] < 0.1 and abs(sum(lead) - 1.0) < 1e-9
    assert reward_from_points([10.0], scale=2.0, baseline=10.0) == [0.5]
    won = final_values([50.0, 49.0], [1, 2], scale=4.0)
    assert won[0] > 0.75 > won[1]
    tied = final_values([50.0, 50.0], [1, 1], scale=4.0)
    assert tied[0] == tied[1] == pytest.approx(0.375 + 0.125)
