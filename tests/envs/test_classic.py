"""PettingZoo classic-game conventions (issue #38, item 4): ``state()``, render modes and
PettingZoo's ``render_test``, the illegal-move choice next to ``TerminateIllegalWrapper``."""

from __future__ import annotations

import contextlib
import io

import pytest

pytest.importorskip("pettingzoo", reason='the envs extra is not installed: pip install -e ".[envs]"')

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, render_test  # noqa: E402
from pettingzoo.utils.wrappers import TerminateIllegalWrapper  # noqa: E402

from arena.envs import core  # noqa: E402
from arena.envs.encoding import encode  # noqa: E402
from arena.envs.pettingzoo import env  # noqa: E402

GAMES = ("black_angel", "solenia", "orbital")


def _drawn(image: np.ndarray, game: str) -> bool:
    """An image of the game's fixed size with a board on it: dark ink (text) and colour (tiles)."""
    from arena.envs.picture import HEIGHT, WIDTH

    coloured = (image.max(axis=2).astype(int) - image.min(axis=2)) > 60
    return (image.shape == (HEIGHT[game], WIDTH, 3) and int(coloured.sum()) > 2000
            and bool((image.max(axis=2) < 80).any()))


@pytest.mark.parametrize("game", GAMES)
def test_render_test_passes_in_ansi_human_and_rgb_array(game: str) -> None:
    pytest.importorskip("PIL", reason="rgb_array needs Pillow (the envs extra)")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        render_test(lambda render_mode=None: env(game, 2, render_mode=render_mode),
                    custom_tests={"ansi": lambda text: "options:" in text or "game over" in text,
                                  "rgb_array": lambda image: _drawn(image, game)})
    assert "to move" in printed.getvalue()  # human mode printed the board
    assert env(game).metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    with pytest.raises(ValueError, match="render_mode must be"):
        env(game, render_mode="pygame")


def test_the_picture_changes_with_the_public_board_and_gymnasium_draws_it_too() -> None:
    pytest.importorskip("PIL", reason="rgb_array needs Pillow (the envs extra)")
    from arena.envs import gymnasium as gym_envs

    e = env("orbital", 2, render_mode="rgb_array")
    e.reset(seed=2)
    before = e.render()
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert not np.array_equal(before, e.render())
    g = gym_envs.env("solenia", "random", render_mode="rgb_array")
    g.reset(seed=1)
    image = g.render()
    assert image.dtype == np.uint8 and _drawn(image, "solenia")


@pytest.mark.parametrize("game", GAMES)
def test_every_configuration_draws_at_one_size_from_start_to_end(game: str) -> None:
    """Empty slots, solo players, bot players, the end: every frame drawn, all the same size."""
    pytest.importorskip("PIL", reason="rgb_array needs Pillow (the envs extra)")
    import random

    from arena.envs.picture import picture
    from referee import registry

    for players, variant in core.configurations(game):
        state = registry.new_game(game, players, 1, variant)
        rng = random.Random(players)
        shapes = {picture(state).shape}
        for n in range(10_000):
            if state.is_over():
                break
            if n % 60 == 59:
                shapes.add(picture(state).shape)
            ids = state.option_ids()
            state.apply(ids[rng.randrange(len(ids))])
        shapes.add(picture(state).shape)
        assert len(shapes) == 1, (players, variant, shapes)


def test_state_is_callable_and_is_every_seats_vector() -> None:
    e = env("solenia", 3)
    with pytest.raises(RuntimeError, match="call reset"):
        e.state()
    e.reset(seed=5)
    for _ in range(10):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    s = e.state()
    assert e.state_space.contains(s) and s.shape == (3 * 2048,)
    for seat in range(3):
        assert np.array_equal(s[seat * 2048:(seat + 1) * 2048],
                              encode(core.compact_observation(e.game_state, seat)))
        assert np.array_equal(s[seat * 2048:(seat + 1) * 2048],
                              e.observe(f"player_{seat}")["observation"])


def _illegal(e) -> int:  # noqa: ANN001
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_illegal_terminate_ends_the_game_as_terminate_illegal_wrapper_does() -> None:
    ours = env("black_angel", 3, illegal="terminate")
    theirs = TerminateIllegalWrapper(env("black_angel", 3), illegal_reward=-1)
    totals = []
    for e in (ours, theirs):
        e.reset(seed=2)
        for _ in range(4):
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        offender = e.agent_selection
        e.step(_illegal(e))
        assert all(e.terminations.values())
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            _obs, reward, terminated, truncated, _info = e.last()
            assert terminated
            total[agent] += reward
            e.step(None)
        assert total[offender] == -1.0
        totals.append(total)
    assert totals[0] == totals[1]
    e = env("black_angel", 3, illegal="terminate")
    e.reset(seed=2)
    offender = e.agent_selection
    e.step(_illegal(e))
    assert e.infos[offender]["illegal_action"] is True and "not legal now" in e.infos[offender]["error"]
    with pytest.raises(ValueError, match="illegal must be one of"):
        env("solenia", illegal="ignore")
    raising = env("black_angel", 3)  # the default: a clear error, the game goes on
    raising.reset(seed=2)
    with pytest.raises(ValueError, match="not legal now"):
        raising.step(_illegal(raising))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_terminate_mode_passes_the_api_test() -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(env("orbital", 3, illegal="terminate"), num_cycles=100)


def test_human_mode_draws_every_step_in_both_toolkits() -> None:
    from arena.envs import gymnasium as gym_envs

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        e = env("solenia", 2, render_mode="human")
        e.reset(seed=1)
        for _ in range(3):
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert printed.getvalue().count("Solenia (2 players") == 3
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        g = gym_envs.env("solenia", "random", render_mode="human")
        obs, _ = g.reset(seed=1)
        g.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert printed.getvalue().count("Solenia (2 players") == 2 and g.render() is None
