"""PettingZoo AEC environments of the three games: ``arena.envs.pettingzoo.env("solenia", players=3)``.

Why AEC: the games are strictly turn-based and the engine alone says whose decision it is
(a seat may move twice in a row), which is exactly PettingZoo's agent-environment cycle. Each
seat is an agent ``player_<seat>``; a solo variant is a one-agent environment (the automaton
moves inside the engine). Spaces (docs/environments.md):

* action: ``Discrete(len(catalogue))`` — index ``i`` is always the same option id
  (:mod:`arena.envs.catalogue`); ``observation["action_mask"]`` marks the legal ones;
* observation: ``{"observation": Box(float32, (2048,)), "action_mask": Box(int8, (n,))}``, the
  vector encoding only ``state.observation(seat)`` (:mod:`arena.envs.encoding`); with
  ``observation="mask"`` only ``{"action_mask": …}`` — no vector, for agents that read the
  structured observation themselves (or need none), at the speed of the bare engine;
* the info of the agent to move holds its structured observation exactly as the referee sends
  it (``"observation"``) and its legal ids (``"option_ids"``), built when first read (read it
  before the next ``step``: a stale read is an error, not an observation of a later state);
  every other agent's info is empty, and at the end every info holds only the public result —
  nothing reaches an agent loop that the seat reading it cannot see;
* ``state()`` is every seat's vector (a centralised critic's input); the engine state is
  ``game_state`` (assigning one restarts the agent cycle); ``illegal="terminate"`` ends the game
  on an illegal action as PettingZoo's ``TerminateIllegalWrapper`` does;
* rewards are zero until the end, then ``+1`` first … ``-1`` last (:mod:`arena.envs.rewards`).

``reset(seed=s)`` plays the engine game with seed ``s``, so a seed reproduces a game exactly.

Why so much laziness and caching: a step of the bare engine costs tens of microseconds, and the
first version of this wrapper spent ~30x that on work nobody asked for (every seat's
structured observation copied after every move, the options listed twice, the whole observation
walked leaf by leaf). Now a step computes the legal options once (``_legal``), the vector only
when ``observe`` is called (once per seat per step, cached; kept per seat as a running sum over
the leaves that changed since that seat last looked: :mod:`arena.envs.incremental`), and infos
only when read;
``arena bench envs`` measures the result beside the bare engine.
"""

from __future__ import annotations

import operator
import random
from typing import Any

import orjson

from arena.envs import core, require
from arena.envs.catalogue import catalogue
from arena.envs.encoding import LIMIT, SIZE
from arena.envs.incremental import IncrementalEncoder

np = require("numpy", "numpy")
_pz = require("pettingzoo", "pettingzoo")
spaces = require("gymnasium.spaces", "gymnasium")
AECEnv = _pz.AECEnv


#: The observation modes: the vector and the mask, or the mask alone.
MODES = ("vector", "mask")
#: What an illegal action does: raise ``ValueError`` (the default), or end the game with
#: ``-1`` for the agent that tried it, as PettingZoo's classic games (``TerminateIllegalWrapper``).
ILLEGAL = ("raise", "terminate")


class StaleInfo(RuntimeError):
    """An info's observation was read after the environment moved on (it is built lazily)."""


class _LazyInfo(dict):
    """``infos[agent]``: a dict whose ``"observation"`` (and, for the agent to move,
    ``"option_ids"``) is filled in when first read.

    Why: building and copying the structured observation of every seat after every move was
    most of the wrapper's cost, and most loops never read it. Every way of reading the dict
    (item, ``get``, ``in``, iteration, ``keys``/``items``/``values``, ``len``, ``==``, ``copy``,
    ``repr``, ``dict(...)``) sees the full dict.
    """

    __slots__ = ("_env", "_seat", "_stamp")

    def __init__(self, env: TabletopAEC, seat: int) -> None:
        # No ``super().__init__()`` and three slots, one per step and seat: this constructor
        # runs for every seat after every move, so it is kept to the bare assignments.
        # ``_stamp`` is the env's step stamp until filled, then ``None``.
        self._env = env
        self._seat = seat
        self._stamp = env._stamp

    def _fill(self) -> None:
        if self._stamp is None:
            return
        env = self._env
        if env._stamp != self._stamp:
            raise StaleInfo(
                "this info belongs to an earlier step: its observation is built when "
                "first read, so read infos[agent] before the next step() or reset()"
            )
        self._stamp = None
        dict.__setitem__(self, "observation", env._fresh_observation(self._seat))
        if self._seat == env._to_move:  # the same step, so the same seat to move
            dict.__setitem__(self, "option_ids", list(env._legal().values()))

    def __missing__(self, key: Any) -> Any:
        if self._stamp is not None:
            self._fill()
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if self._stamp is not None and (
            key == "observation" or (key == "option_ids" and self._seat == self._env._to_move)
        ):
            return True
        return dict.__contains__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._fill()
        return dict.get(self, key, default)

    def __iter__(self) -> Any:
        self._fill()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._fill()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._fill()
        return dict.keys(self)

    def items(self) -> Any:
        self._fill()
        return dict.items(self)

    def values(self) -> Any:
        self._fill()
        return dict.values(self)

    def __eq__(self, other: object) -> bool:
        self._fill()
        if isinstance(other, _LazyInfo):
            other._fill()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> dict[str, Any]:
        self._fill()
        return dict(dict.items(self))

    def __repr__(self) -> str:
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self) -> Any:
        return (dict, (self.copy(),))


class TabletopAEC(AECEnv):
    """One game (one configuration) as a PettingZoo AEC environment."""

    metadata = {"render_modes": list(core.RENDER_MODES), "name": "tabletop_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        players: int = 2,
        variant: str | None = None,
        render_mode: str | None = None,
        observation: str = "vector",
        illegal: str = "raise",
    ) -> None:
        super().__init__()
        self.variant = core.check_config(game, players, variant)
        core.check_render_mode(render_mode)
        if observation not in MODES:
            raise ValueError(
                f"observation must be one of {', '.join(MODES)}, not {str(observation)[:40]!r}"
            )
        if illegal not in ILLEGAL:
            raise ValueError(
                f"illegal must be one of {', '.join(ILLEGAL)}, not {str(illegal)[:40]!r}"
            )
        self.illegal = illegal
        self.game = game
        self.players = players
        self.render_mode = render_mode
        self.observation_mode = observation
        self._vector = observation == "vector"
        self.catalogue = catalogue(game)
        self.metadata = {**self.metadata, "name": f"tabletop_{game}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        n = len(self.catalogue)
        fields: dict[str, Any] = {"action_mask": spaces.Box(0, 1, (n,), np.int8)}
        if self._vector:
            fields = {"observation": spaces.Box(-LIMIT, LIMIT, (SIZE,), np.float32), **fields}
        self._obs_space = {a: spaces.Dict(dict(fields)) for a in self.possible_agents}
        self._act_space = {a: spaces.Discrete(n) for a in self.possible_agents}
        #: ``state()``: every seat's vector, seat after seat (a centralised critic's input).
        self.state_space = spaces.Box(-LIMIT, LIMIT, (players * SIZE,), np.float32)
        self._seeds = random.Random()
        # Per-step caches, valid while ``_stamp`` (bumped by every move, reset and state
        # assignment) is unchanged.
        self._stamp = 0
        self._state: Any = None
        self._to_move: int | None = None
        self._legal_at = -1
        self._legal_map: dict[int, str] = {}
        # The int8 mask of the seat to move, handed out as copies: one buffer for the whole
        # game, the last step's ones cleared and this step's set (Orbital's catalogue has
        # 8,569 actions; a fresh buffer a step costs more than the few writes).
        # (no numpy view kept on it: a deep copy of the env would copy the view apart from it)
        self._bits = bytearray(n)
        self._no_mask = np.zeros(n, dtype=np.int8)  # every other seat's (copied too)
        self._seat_agents = list(enumerate(self.possible_agents))
        self._obs_at: dict[int, tuple[int, dict[str, Any]]] = {}
        self._vec_at: dict[int, tuple[int, Any]] = {}
        #: Per seat, its vector kept up to date move by move (arena/envs/incremental.py): equal
        #: to ``encode(compact_observation(state, seat))`` at a fraction of its cost.
        self._encoders = [IncrementalEncoder(game) for _ in range(players)]

    @property
    def game_state(self) -> Any:
        """The engine state (``GameState``); assigning another one drops every cached view."""
        return self._state

    @game_state.setter
    def game_state(self, value: Any) -> None:
        """Assigning a state restarts the agent cycle from it: the agent to move, fresh infos,
        rewards, terminations — as if the game had been played to it in this environment
        (without this, the next ``step`` would be applied for the old state's agent)."""
        self._state = value
        self._stamp += 1
        self._to_move = None if value is None else value.to_move()
        if value is not None:
            self._start()

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
        self.game_state = core.new_state(self.game, self.players, self.variant, game_seed)

    def _start(self) -> None:
        """The cycle at the start of (or at an assigned) state: every agent in, nothing paid."""
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self) -> None:
        """Whose turn, fresh infos, and at the end rewards and terminations.

        Only the agent to move gets its (lazy) structured observation in its info; every other
        agent's info is empty, and at the end every info holds only the public result. Why: an
        agent loop can read every entry of ``infos``, so another seat's observation there would
        hand it that seat's hand. Why nothing else per move: rewards are zero until the end, so
        the reward dicts are written (and accumulated) only then."""
        seat = self._to_move = self._state.to_move()
        infos = self.infos
        for i, agent in self._seat_agents:
            if agent in infos:
                infos[agent] = _LazyInfo(self, i) if i == seat else {}
        if seat is None:
            result = self._state.result().to_json()
            for agent, reward in zip(
                self.possible_agents, core.terminal_rewards(self._state), strict=True
            ):
                self.rewards[agent] = reward
                self.terminations[agent] = True
                infos[agent]["result"] = result
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[seat]

    def _legal(self) -> dict[int, str]:
        """Action number -> option id of the legal options now, and their mask (``_bits``):
        listed once per step, the mask written in the same loop (into one bytearray with a
        numpy view: cheaper than a numpy index array and a fancy assignment)."""
        if self._legal_at != self._stamp:
            ids = self._state.option_ids() if self._to_move is not None else []
            index = self.catalogue.index
            bits = self._bits
            for i in self._legal_map:  # the last step's ones
                bits[i] = 0
            legal: dict[int, str] = {}
            self._legal_map = legal
            try:
                for o in ids:
                    i = index[o]
                    legal[i] = o
                    bits[i] = 1
            except KeyError:
                for o in ids:
                    self.catalogue.action_of(o)  # raises UnknownOption naming the id
                raise
            self._legal_at = self._stamp
        return self._legal_map

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            legal = self._legal_map if self._legal_at == self._stamp else self._legal()
            option_id = legal.get(operator.index(action))
        except TypeError:  # not an integer: option_of says so
            option_id = None
        if option_id is None:
            if self.illegal == "terminate":
                self._terminate_illegal(agent, action)
                return
            option_id = core.option_of(
                self.catalogue, self._state, action
            )  # converts, or says why not
        # ``_cumulative_rewards[agent]`` stays 0.0 until the end (rewards are terminal only), so
        # it needs no reset here; ``_after_move`` accumulates the terminal rewards.
        self._state.apply(option_id)
        self._stamp += 1
        self._after_move()
        if self.render_mode == "human":  # PettingZoo's convention: human mode draws each step
            self.render()

    def _terminate_illegal(self, agent: str, action: Any) -> None:
        """What PettingZoo's ``TerminateIllegalWrapper(illegal_reward=-1)`` does: the game ends
        for every agent, ``-1`` for the one that tried the illegal action, 0 for the others;
        its info says why."""
        try:
            core.option_of(self.catalogue, self._state, action)
            why = "illegal action"
        except ValueError as exc:
            why = str(exc)
        self._stamp += 1
        self._to_move = None
        for other in self.agents:
            self.rewards[other] = -1.0 if other == agent else 0.0
            self.terminations[other] = True
            self.infos[other] = {"illegal_action": other == agent}
        self.infos[agent]["error"] = why
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seats[agent]
        if seat == self._to_move:
            if self._legal_at != self._stamp:
                self._legal()
            mask = np.frombuffer(self._bits, np.int8).copy()
        else:
            mask = self._no_mask.copy()
        if not self._vector:
            return {"action_mask": mask}
        return {"observation": self._vector_of(seat), "action_mask": mask}

    def _vector_of(self, seat: int) -> Any:
        """``seat``'s vector now (a new array): its :class:`IncrementalEncoder` brings the
        running sum up to date with the moves since that seat last looked; a second call in the
        same step copies the first."""
        got = self._vec_at.get(seat)
        if got is None or got[0] != self._stamp:
            vec = self._encoders[seat].vector(self._state, seat)
            self._vec_at[seat] = (self._stamp, vec)
            return vec.copy()
        return got[1].copy()

    def _observation(self, seat: int) -> dict[str, Any]:
        """The engine's observation of ``seat`` now (shared: the encoder only reads it)."""
        got = self._obs_at.get(seat)
        if got is None or got[0] != self._stamp:
            got = self._obs_at[seat] = (self._stamp, self._state.observation(seat))
        return got[1]

    def _fresh_observation(self, seat: int) -> dict[str, Any]:
        """A copy the caller may keep and modify (an engine may share parts between calls)."""
        return orjson.loads(orjson.dumps(self._observation(seat)))

    def render(self) -> Any:
        """``ansi``: the board as text — the public view and the options of the agent to move,
        never the seed or another seat's hidden state; ``human``: the same printed; ``rgb_array``: the
        board as an image (the public view, as the website draws it: arena/envs/picture.py)."""
        return core.render(self._state, self.render_mode)

    def state(self) -> Any:
        """PettingZoo's global state: every seat's observation vector, seat after seat
        (``state_space``) — the union of what the seats see, for a centralised critic. Not the
        engine's whole state: deck orders and future rolls would let a critic learn from the
        future. The engine state itself is :attr:`game_state`."""
        if self._state is None:
            raise RuntimeError("no game yet: call reset() first")
        return np.concatenate([self._vector_of(seat) for seat in range(self.players)])

    def close(self) -> None:
        pass


def env(
    game: str,
    players: int = 2,
    variant: str | None = None,
    render_mode: str | None = None,
    observation: str = "vector",
    illegal: str = "raise",
) -> TabletopAEC:
    """A PettingZoo AEC environment of ``game`` for ``players`` seats and ``variant``
    (the game's default when ``None``); any configuration ``arena games`` lists.
    ``observation="mask"`` leaves the vector out (``{"action_mask": …}`` only);
    ``illegal="terminate"`` ends the game on an illegal action (-1 to its agent) instead of
    raising ``ValueError``."""
    return TabletopAEC(game, players, variant, render_mode, observation, illegal)


raw_env = env
