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


@pytest.mark.parametrize("game", ["black_angel", "solenia"])
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


def test_values_reward_the_lead_and_the_win():
    lead = reward_from_points([30.0, 20.0], scale=4.0)
    assert lead[0] > 0.9 and lead[1] < 0.1 and abs(sum(lead) - 1.0) < 1e-9
    assert reward_from_points([10.0], scale=2.0, baseline=10.0) == [0.5]
    won = final_values([50.0, 49.0], [1, 2], scale=4.0)
    assert won[0] > 0.75 > won[1]
    tied = final_values([50.0, 50.0], [1, 1], scale=4.0)
    assert tied[0] == tied[1] == pytest.approx(0.375 + 0.125)
