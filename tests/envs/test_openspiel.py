"""The OpenSpiel games pass random_sim_test, re-sample information states, and MCTS plays them."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason='the envs extra is not installed: pip install -e ".[envs]"')

import arena.envs.openspiel  # noqa: E402,F401  (registers the games)
from arena.envs.core import configurations  # noqa: E402
from arena.envs.openspiel import mcts_move  # noqa: E402
from referee.engine import ConfigError  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")
#: MCTS settings per game for the short form (Orbital's games are the longest).
MCTS = {"black_angel": (10, 2), "solenia": (10, 2), "orbital": (4, 1)}


def _load(game: str, players: int = 2, variant: str = "") -> object:
    return pyspiel.load_game(f"tabletop_{game}", {"players": players, "variant": variant})


@pytest.mark.parametrize("game", GAMES)
def test_random_sim_test_passes_with_serialisation(game: str) -> None:
    g = _load(game)
    t = g.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(g, num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "variant"),
                         [(g, p, v) for g in GAMES for p, v in configurations(g)])
def test_random_sim_test_passes_for_every_configuration(game: str, players: int, variant: str) -> None:
    pyspiel.random_sim_test(_load(game, players, variant), num_sims=2, serialize=True, verbose=False)


def _midgame(game: str, players: int, moves: int, seed: int) -> object:
    state = _load(game, players).new_initial_state()
    state.apply_action(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("game", GAMES)
def test_resample_from_infostate_keeps_what_the_player_knows(game: str) -> None:
    state = _midgame(game, 3, 15, seed=21)
    player = state.current_player()
    rng = random.Random(4)
    other = state.resample_from_infostate(player, rng.random)
    assert other.information_state_string(player) == state.information_state_string(player)
    assert other.observation_tensor(player) == state.observation_tensor(player)
    assert other.legal_actions() == state.legal_actions()
    assert other.engine.to_json() != state.engine.to_json()  # the hidden part was re-sampled
    # and another player's view of the re-sampled world is not this player's
    assert other.information_state_string((player + 1) % 3) != other.information_state_string(player)


def test_serialisation_round_trip_and_strings() -> None:
    state = _midgame("solenia", 2, 20, seed=5)
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(state.get_game(), state))
    assert state2.engine.to_json() == state.engine.to_json()
    assert str(game2) == "tabletop_solenia(players=2,variant=summer)"
    assert state.information_state_string(0) != state.information_state_string(1)
    assert len(state.observation_tensor(0)) == 2048
    assert state.action_to_string(state.current_player(), state.legal_actions()[0]) in state.engine.option_ids()


def test_bad_parameters_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="not 9"):
        _load("solenia", 9)


@pytest.mark.parametrize("game", GAMES)
def test_python_mcts_with_determinisation_plays_a_full_game(game: str) -> None:
    simulations, determinisations = MCTS[game]
    state = _load(game).new_initial_state()
    state.apply_action(11)
    moves = 0
    while not state.is_terminal():
        state.apply_action(mcts_move(state, simulations, determinisations, seed=moves))
        moves += 1
    assert sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])
