"""Gymnasium environments: one learning seat against house bots.

``arena.envs.gymnasium.env("orbital", opponents="greedy", players=3)`` seats the learner at
``seat`` (0 by default) and lets the other seats be played by the built-in ``greedy``, ``random``
or ``ismcts`` bot (:mod:`arena.envs.opponents`), or a policy ``policy(vector, mask) -> index``
(self-play), inside ``step``. The spaces are the PettingZoo
environment's (:mod:`arena.envs.pettingzoo`): ``Discrete`` over the game's action catalogue and
a dict of the float32 vector and the ``action_mask``; ``info["observation"]`` is the referee's
structured observation, ``info["option_ids"]`` the legal ids.

Info: by default every step's ``info`` has the same fixed structure, ``{"illegal_action": bool,
"rank": int}`` (``rank`` the learner's place once the game is over, else 0), because Gymnasium's
vector environments merge the infos of their sub-environments key by key into arrays, and the
structured observation (a tree whose shape changes every step) cannot be merged. The per-step
extras (``observation``, ``option_ids``, ``result``, ``error``) come with ``info_extras=True``:
for a single environment, not a vector one. Importing this module registers the Gymnasium ids
(:mod:`arena.envs.registration`).

Reward: 0 until the game ends, then the learner's rank reward (:mod:`arena.envs.rewards`:
+1 first, -1 last, evenly between; solo: +1 for beating the automaton, else -1). An illegal
action (one the mask rules out) ends the episode at once with reward -1 and
``info["illegal_action"] = True``, so a policy that ignores the mask learns not to.
"""

from __future__ import annotations

import operator
import random
from typing import Any

from arena.envs import core, require
from arena.envs.catalogue import catalogue
from arena.envs.encoding import LIMIT, SIZE
from arena.envs.incremental import IncrementalEncoder
from arena.envs.opponents import ISMCTS_ITERATIONS, opponent
from arena.envs.registration import register_envs

np = require("numpy", "numpy")
gym = require("gymnasium", "gymnasium")
spaces = require("gymnasium.spaces", "gymnasium")


class TabletopEnv(gym.Env):
    """One configuration of a game, seat ``seat`` learning, every other seat a house bot."""

    metadata = {"render_modes": list(core.RENDER_MODES)}

    def __init__(self, game: str, opponents: str | Any = "greedy", players: int = 2,
                 variant: str | None = None, seat: int = 0, render_mode: str | None = None,
                 ismcts_iterations: int = ISMCTS_ITERATIONS, info_extras: bool = False) -> None:
        self.variant = core.check_config(game, players, variant)
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {str(seat)[:20]}")
        core.check_render_mode(render_mode)
        self.game, self.players, self.seat, self.render_mode = game, players, seat, render_mode
        self.opponents = opponents
        self.info_extras = bool(info_extras)
        self._opponent = opponent(opponents, game, ismcts_iterations)
        self.catalogue = catalogue(game)
        n = len(self.catalogue)
        self.action_space = spaces.Discrete(n)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-LIMIT, LIMIT, (SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })
        self._rng = random.Random()
        self._state: Any = None
        self._ended = True  # until reset(); also after an illegal action
        self._ids: list[str] = []  # the legal ids _obs listed last (the learner's turn)
        self._listed = False  # whether _legal, _ids and _bits are the current state's
        self._legal: dict[int, str] = {}  # action number -> legal option id, listed by _obs
        # The learner's int8 mask: one buffer, last step's ones cleared and this step's set
        # (a fresh zeroed array of Orbital's 8,569 actions a step costs more), handed out as
        # copies; and its vector kept up to date move by move (arena/envs/incremental.py).
        # (no numpy view kept on it: a deep copy of the env would copy the view apart from it)
        self._bits = bytearray(n)
        self._encoder = IncrementalEncoder(game)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        game_seed = int(seed) if seed is not None else int(self.np_random.integers(2**31))
        self._rng.seed(game_seed ^ 0x0B07)
        self.state = core.new_state(self.game, self.players, self.variant, game_seed)
        if self.render_mode == "human":  # Gymnasium's convention: human mode draws each step
            self.render()
        return self._obs(), self._info()

    @property
    def state(self) -> Any:
        """The engine state (``GameState``)."""
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        """Assigning a state (a reset, or a loaded or re-sampled game) plays the house bots up to
        the learner's turn, so the next ``step`` is always the learner's."""
        self._state = value
        self._ids = []
        self._listed = False  # (``_legal`` stays: its ones are what _list_legal clears in _bits)
        if value is None:
            self._ended = True
            return
        self._bots_move()
        self._ended = value.is_over()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self._ended:
            raise RuntimeError("the episode is over (or not started): call reset()")
        try:
            # the legal options _obs listed for this very state (after an assigned state, the
            # mask is None and they are listed afresh); core.option_of says why an action is not
            legal = self._legal if self._listed else self._list_legal()
            try:
                option_id = legal.get(operator.index(action))
            except TypeError:  # not an integer
                option_id = None
            if option_id is None:
                option_id = core.option_of(self.catalogue, self.state, action)
        except ValueError as exc:
            info = self._info()
            info["illegal_action"] = True
            if self.info_extras:
                info["error"] = str(exc)
            self._ended = True
            return self._obs(), -1.0, True, False, info
        self.state.apply(option_id)
        self._bots_move()
        over = self._ended = self.state.is_over()
        reward = core.terminal_rewards(self.state)[self.seat] if over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), over, False, self._info()

    def _bots_move(self) -> None:
        while (seat := self.state.to_move()) is not None and seat != self.seat:
            self.state.apply(self._opponent(self.state, seat, self._rng))

    def _obs(self) -> dict[str, Any]:
        """The vector (of the engine's compact observation: arena/envs/encoding.py) and the mask;
        the legal ids are listed once and kept for ``_info``."""
        self._list_legal()
        # one copy of the mask buffer a step (the observation's own: Gymnasium's contract is
        # that returned data is not reused); action_masks() copies _bits only when called
        return {"observation": self._encoder.vector(self.state, self.seat),
                "action_mask": np.frombuffer(self._bits, np.int8).copy()}

    def _list_legal(self) -> dict[int, str]:
        """List the learner's legal options once for this state: ``_ids``, ``_legal`` and the
        ones of ``_bits`` (the last state's cleared)."""
        self._ids = self.state.option_ids() if self.state.to_move() == self.seat else []
        bits = self._bits
        for i in self._legal:
            bits[i] = 0
        legal: dict[int, str] = {}
        self._legal = legal
        index = self.catalogue.index
        try:
            for o in self._ids:
                i = index[o]
                legal[i] = o
                bits[i] = 1
        except KeyError:
            core.legal_actions(self.catalogue, self.state)  # raises UnknownOption naming the id
            raise
        self._listed = True
        return legal

    def _info(self) -> dict[str, Any]:
        """The fixed-structure info (vector-env safe), plus the extras when asked for."""
        over = self.state.is_over()
        info: dict[str, Any] = {
            "illegal_action": False,
            "rank": int(self.state.result().ranks[self.seat]) if over else 0,
        }
        if self.info_extras:
            info["observation"] = core.fresh_observation(self.state, self.seat)
            if over:
                info["result"] = self.state.result().to_json()
            else:
                info["option_ids"] = list(self._ids)
        return info

    def action_masks(self) -> Any:
        """The legal actions now (the ``action_masks`` method maskable-PPO implementations call):
        the mask the last ``reset``/``step`` handed out, as ``bool`` — a copy of the buffer
        that step filled, not re-encoded (it once cost half a step). A ``state`` assigned since
        is listed afresh."""
        if not self._listed:
            self._list_legal()
        return np.frombuffer(self._bits, np.bool_).copy()

    def render(self) -> Any:
        """``ansi``: the board as text (public view and the learner's options; never the seed);
        ``human``: the same printed; ``rgb_array``: the
        board as an image (the public view, as the website draws it: arena/envs/picture.py)."""
        return core.render(self.state, self.render_mode)


def env(game: str, opponents: str | Any = "greedy", players: int = 2, variant: str | None = None,
        seat: int = 0, render_mode: str | None = None,
        ismcts_iterations: int = ISMCTS_ITERATIONS, info_extras: bool = False) -> TabletopEnv:
    """A Gymnasium environment of ``game``: seat ``seat`` learns against house bots ``opponents``
    (``ismcts_iterations``: the search bot's iterations per decision; ``info_extras``: the
    structured observation and legal ids in every info — not for vector envs)."""
    return TabletopEnv(game, opponents, players, variant, seat, render_mode, ismcts_iterations,
                       info_extras)


register_envs()
