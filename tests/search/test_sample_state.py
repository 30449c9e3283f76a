"""Sampling a playable state from one seat's observation (``arena.sdk.sample_state``).

For every hosted game and configuration, at random positions of random games: the sampled
state shows the seat exactly the observation it was given, plays on legally to the end, and
its hidden part is really drawn afresh (not the true state's, which the function never sees).
"""

from __future__ import annotations

import random

import orjson
import pytest

from arena.sdk import sample_state
from referee import registry
from referee.engine import EngineError

GAMES = [g for g in registry.game_names() if g != "toy"]
CONFIGS = [(g, p, v) for g in GAMES for p, v in registry.get_spec(g).configurations]


def _wire(obs: dict) -> dict:
    """What a bot receives: the observation after its JSON trip over gRPC."""
    return orjson.loads(orjson.dumps(obs))


def _positions(game: str, players: int, variant: str, seeds: int, rate: float):
    """(true state, seat, wire observation) at random positions of random games."""
    cls = registry.get_game(game)
    for seed in range(seeds):
        r = random.Random(f"{game}:{players}:{variant}:{seed}")
        st = cls.new(players, seed, variant)
        while not st.is_over():
            if r.random() < rate:
                mover = st.to_move()
                yield st, mover, _wire(st.observation(mover))
                other = r.randrange(players)
                if other != mover:
                    yield st, other, _wire(st.observation(other))
            st.apply(r.choice(st.option_ids()))


@pytest.mark.parametrize(("game", "players", "variant"), CONFIGS)
def test_sampled_state_reproduces_the_observation_and_plays_on_legally(game, players, variant, full_run):
    seeds = 12 if full_run else 2
    r = random.Random(7)
    checked = 0
    for _, seat, obs in _positions(game, players, variant, seeds, rate=0.25):
        sampled = sample_state(game, obs, seed=r.randrange(1 << 31))
        assert _wire(sampled.observation(seat)) == obs
        steps = 0
        while not sampled.is_over():
            ids = sampled.option_ids()
            assert ids, "a sampled state offered no option before the end"
            sampled.apply(r.choice(ids))  # IllegalAction would fail the test
            steps += 1
            assert steps < 5000
        assert len(sampled.result().ranks) == players
        checked += 1
    assert checked >= seeds


@pytest.mark.parametrize("game", GAMES)
def test_hidden_information_is_resampled_not_copied(game):
    """The sampled other hands and deck orders differ from the truth and between seeds."""
    spec = registry.get_spec(game)
    players = min(p for p in spec.player_counts if p >= 2)
    variant = spec.variants_for(players)[0]
    differs_truth = differs_seed = total = 0
    for true_state, _seat, obs in _positions(game, players, variant, seeds=3, rate=0.3):
        a = sample_state(game, obs, seed=1)
        b = sample_state(game, obs, seed=2)
        truth = _wire(true_state.spectator_view())
        total += 1
        differs_truth += _wire(a.spectator_view()) != truth
        differs_seed += _wire(a.spectator_view()) != _wire(b.spectator_view())
    assert total >= 10
    # Positions where nothing is hidden (every deck empty, no hand) are rare: nearly all differ.
    assert differs_truth >= 0.9 * total
    assert differs_seed >= 0.9 * total


@pytest.mark.parametrize("game", GAMES)
def test_the_seats_own_hand_is_kept(game):
    own = {"black_angel": lambda v: v["seats"][0]["hand"], "solenia": lambda v: v["hands"][0],
           "orbital": lambda v: v["hands"][0]}.get(game)
    if own is None:
        pytest.skip(f"no hand accessor for {game}")
    cls = registry.get_game(game)
    st = cls.new(2, 11, cls.spec.variants_for(2)[0])
    obs = _wire(st.observation(0))
    view = _wire(sample_state(game, obs, seed=99).spectator_view())
    truth = _wire(st.spectator_view())
    assert own(view) == own(truth)


def test_a_game_without_the_hook_says_so_clearly():
    from tests.toy_game import ToyState

    obs = ToyState.new(2, 1).observation(0)
    with pytest.raises(EngineError, match="toy cannot rebuild a state from an observation"):
        sample_state("toy", obs, 1)


@pytest.mark.parametrize("game", GAMES)
def test_not_an_observation_of_the_game_is_a_clear_error(game):
    with pytest.raises(EngineError):
        sample_state(game, {"seat": 0, "nothing": 1}, 1)
