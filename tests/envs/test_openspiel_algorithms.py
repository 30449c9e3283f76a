"""OpenSpiel's own algorithms on the games, and the perfect-recall information-state tensor
(issue #38, item 2): the contract exercised by the library's code, not only by random_sim_test."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason='the envs extra is not installed: pip install -e ".[envs]"')

import numpy as np  # noqa: E402
from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.algorithms import outcome_sampling_mccfr as os_mccfr  # noqa: E402

from arena.envs.encoding import SIZE  # noqa: E402
from arena.envs.openspiel import DIGEST_BITS, HISTORY_SIZE, INFO_STATE_SIZE, MAX_GAME_LENGTH  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")


def _load(game: str, players: int = 2) -> object:
    return pyspiel.load_game(f"tabletop_{game}", {"players": players, "variant": ""})


def _states(game: str, seed: int, players: int = 2) -> list:
    """The states of one random game after the deal, every one a clone."""
    state = _load(game, players).new_initial_state()
    state.apply_action(seed)
    rng = random.Random(seed)
    out = [state.clone()]
    while not state.is_terminal() and len(out) < 60:
        state.apply_action(rng.choice(state.legal_actions()))
        out.append(state.clone())
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_information_state_tensor_is_perfect_recall_and_bounded(game: str) -> None:
    g = _load(game)
    assert g.get_type().provides_information_state_tensor
    assert g.information_state_tensor_shape() == [INFO_STATE_SIZE] == [SIZE + HISTORY_SIZE + DIGEST_BITS]
    by_string: dict[str, tuple] = {}
    for state in _states(game, 7) + _states(game, 8):
        for p in range(2):
            t = np.asarray(state.information_state_tensor(p), np.float32)
            assert t.shape == (INFO_STATE_SIZE,)
            assert np.array_equal(t[:SIZE], np.asarray(state.observation_tensor(p), np.float32))
            history, bits = t[SIZE:SIZE + HISTORY_SIZE], t[SIZE + HISTORY_SIZE:]
            assert history.min() >= 0 and history.sum() <= MAX_GAME_LENGTH
            assert set(np.unique(bits)) <= {0.0, 1.0}
            # one tensor per information state, and one information state per tensor
            key = state.information_state_string(p)
            assert by_string.setdefault(key, tuple(t)) == tuple(t)
    tensors = set(by_string.values())
    assert len(tensors) == len(by_string)  # the digest bits keep apart what the strings do
    for key, t in by_string.items():  # and they are the string's own digest
        assert bytes(np.packbits(np.asarray(t[SIZE + HISTORY_SIZE:], np.uint8))).hex() == key.rsplit("#", 1)[1]
    # a re-sampled world keeps the player's tensor (the same information state)
    state = _states(game, 9)[20]
    p = state.current_player()
    other = state.resample_from_infostate(p, random.Random(2).random)
    assert other.information_state_tensor(p) == state.information_state_tensor(p)
    # and a state serialised and loaded again (history replayed) gives the same tensors
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(state.get_game(), state))
    assert again.information_state_tensor(1) == state.information_state_tensor(1)


@pytest.mark.parametrize("game", GAMES)
def test_outcome_sampling_mccfr_runs_and_gives_an_average_policy(game: str) -> None:
    g = _load(game)
    solver = os_mccfr.OutcomeSamplingSolver(g)
    for _ in range(2):
        solver.iteration()
    policy = solver.average_policy()
    state = _states(game, 4)[1]
    probs = policy.action_probabilities(state)
    assert set(probs) <= set(state.legal_actions()) and abs(sum(probs.values()) - 1) < 1e-6


@pytest.mark.parametrize("game", GAMES)
def test_openspiels_python_ismcts_bot_plays_legal_moves(game: str) -> None:
    g = _load(game)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=2.0,
                           max_simulations=8, random_state=np.random.RandomState(1))
    state = _states(game, 5)[0]
    for _ in range(3):
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_rl_environment_hands_out_the_information_state_tensor() -> None:
    env = rl_environment.Environment(_load("solenia"), seed=3)
    assert env.observation_spec()["info_state"] == (INFO_STATE_SIZE,)
    step = env.reset()
    rng = random.Random(0)
    n = 0
    while not step.last() and n < 80:
        p = step.observations["current_player"]
        assert len(step.observations["info_state"][p]) == INFO_STATE_SIZE
        step = env.step([rng.choice(step.observations["legal_actions"][p])])
        n += 1
