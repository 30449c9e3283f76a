"""PettingZoo AEC environments of the three games: ``arena.envs.pettingzoo.env("solenia", players=3)``.

Why AEC: the games are strictly turn-based and the engine alone says whose decision it is
(a seat may move twice in a row), which is exactly PettingZoo's agent-environment cycle. Each
seat is an agent ``player_<seat>``; a solo variant is a one-agent environment (the automaton
moves inside the engine). Spaces (docs/environments.md):

* action: ``Discrete(len(catalogue))`` — index ``i`` is always the same option id
  (:mod:`arena.envs.catalogue`); ``observation["action_mask"]`` marks the legal ones;
* observation: ``{"observation": Box(float32, (2048,)), "action_mask": Box(int8, (n,))}``, the
  vector encoding only ``state.observation(seat)`` (:mod:`arena.envs.encoding`);
* ``infos[agent]["observation"]`` is the structured observation exactly as the referee sends it;
* rewards are zero until the end, then ``+1`` first … ``-1`` last (:mod:`arena.envs.rewards`).

``reset(seed=s)`` plays the engine game with seed ``s``, so a seed reproduces a game exactly.
"""

from __future__ import annotations

import random
from typing import Any

from arena.envs import core, require
from arena.envs.catalogue import catalogue
from arena.envs.encoding import LIMIT, SIZE, encode

np = require("numpy", "numpy")
_pz = require("pettingzoo", "pettingzoo")
spaces = require("gymnasium.spaces", "gymnasium")
AECEnv = _pz.AECEnv


class TabletopAEC(AECEnv):
    """One game (one configuration) as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["ansi"], "name": "tabletop_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: int = 2, variant: str | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.variant = core.check_config(game, players, variant)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {str(render_mode)[:40]!r}")
        self.game = game
        self.players = players
        self.render_mode = render_mode
        self.catalogue = catalogue(game)
        self.metadata = {**self.metadata, "name": f"tabletop_{game}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(players)]
        n = len(self.catalogue)
        self._obs_space = {
            a: spaces.Dict({
                "observation": spaces.Box(-LIMIT, LIMIT, (SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }) for a in self.possible_agents
        }
        self._act_space = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: Any = None

    def observation_space(self, agent: str) -> Any:
        return self._obs_space[agent]

    def action_space(self, agent: str) -> Any:
        return self._act_space[agent]

    # --- the cycle ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = int(seed)
        else:
            game_seed = self._seeds.randrange(2**31)
        self.state = core.new_state(self.game, self.players, self.variant, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self) -> None:
        seat = self.state.to_move()
        for i, agent in enumerate(self.possible_agents):
            if agent in self.infos:
                self.infos[agent] = {"observation": core.fresh_observation(self.state, i)}
        if seat is None:
            for agent, reward in zip(self.possible_agents, core.terminal_rewards(self.state), strict=True):
                self.rewards[agent] = reward
                self.terminations[agent] = True
                self.infos[agent]["result"] = self.state.result().to_json()
        else:
            self.agent_selection = self.possible_agents[seat]
            self.infos[self.agent_selection]["option_ids"] = self.state.option_ids()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        option_id = core.option_of(self.catalogue, self.state, action)
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(option_id)
        self._after_move()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(len(self.catalogue), dtype=np.int8)
        if self.state.to_move() == seat:
            mask[core.legal_actions(self.catalogue, self.state)] = 1
        return {"observation": encode(self.state.observation(seat)), "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return core.board_text(self.state)

    def close(self) -> None:
        pass


def env(game: str, players: int = 2, variant: str | None = None,
        render_mode: str | None = None) -> TabletopAEC:
    """A PettingZoo AEC environment of ``game`` for ``players`` seats and ``variant``
    (the game's default when ``None``); any configuration ``arena games`` lists."""
    return TabletopAEC(game, players, variant, render_mode)


raw_env = env
