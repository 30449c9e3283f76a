"""OpenSpiel games: importing this module registers ``tabletop_black_angel``, ``tabletop_solenia``
and ``tabletop_orbital`` as Python games, each with ``players`` and ``variant`` parameters.

    import pyspiel, arena.envs.openspiel
    game = pyspiel.load_game("tabletop_solenia", {"players": 3, "variant": "winter"})

Game type (docs/environments.md): sequential, imperfect information, general sum, terminal
rewards (+1 first … -1 last, :mod:`arena.envs.rewards`). Chance is *explicit* at exactly one
node, the first: it draws the engine seed uniformly from :data:`SEEDS` outcomes, and every later
shuffle and die roll is the engine's own generator, seeded there and hidden inside the state (a
deck dealt face down at the start, in effect). So a state is a function of its history, and
OpenSpiel's history-based serialisation (``serialize_game_and_state``) works.

* actions: the game's action catalogue (:mod:`arena.envs.catalogue`), one number per option id;
* ``observation_tensor``: the 2048-float vector of the seat's referee observation
  (:mod:`arena.envs.encoding`); ``observation_string``: that observation as JSON;
* ``information_state_string``: the observation plus a digest of everything the seat has seen
  since the start (every observation it had and every choice it was allowed to see: the
  engine's ``option_audience``), which makes it perfect recall;
* ``information_state_tensor``: :data:`INFO_STATE_SIZE` floats — the observation vector, a
  bag of the moves the seat saw (hashed like the vector) and the 128 bits of that recall
  digest: perfect recall (two information states differ in the bits), bounded, with features a
  network can learn from (:class:`TabletopObserver`);
* ``resample_from_infostate(player, sampler)``: a state drawn by the engine's
  ``from_observation`` (the SDK's ``sample_state``) — same observation and information state for
  ``player``, everything hidden re-sampled. Its ``history()`` is not a real history: do not
  serialise a re-sampled state.

:func:`mcts_move` plays a decision with OpenSpiel's Python ``MCTSBot`` over determinised states
(``pyspiel.ISMCTSBot`` is not used: see docs/environments.md).
"""

from __future__ import annotations

import hashlib
import random
import time
import zlib
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson

from arena.envs import core, require
from arena.envs.catalogue import GAMES, catalogue
from arena.envs.encoding import SIZE, encode
from arena.sdk import sample_state
from referee import registry

np = require("numpy", "numpy")
pyspiel = require("pyspiel", "open_spiel")

#: How many engine seeds the opening chance node draws from.
SEEDS = 1 << 16
#: A bound on decisions per game for GameInfo (the longest random 5-player Orbital game is ~450).
MAX_GAME_LENGTH = 5000
#: The information-state tensor: observation vector | moves seen (bag) | recall digest bits.
HISTORY_SIZE = 2048
DIGEST_BITS = 128
INFO_STATE_SIZE = SIZE + HISTORY_SIZE + DIGEST_BITS


def _game_type(game: str) -> Any:
    spec = registry.get_spec(game)
    return pyspiel.GameType(
        short_name=f"tabletop_{game}",
        long_name=f"Tabletop Arena {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.player_counts),
        min_num_players=min(spec.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2, "variant": ""},
    )


class TabletopGame(pyspiel.Game):
    """One configuration of a game; ``params``: ``players`` and ``variant`` ("" = default)."""

    def __init__(self, game: str, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 2))
        variant = core.check_config(game, players, str(params.get("variant", "")) or None)
        self.name, self.players, self.variant = game, players, variant
        self.catalogue = catalogue(game)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.catalogue),
            max_chance_outcomes=SEEDS,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_game_type(game), info, {"players": players, "variant": variant})

    def new_initial_state(self) -> TabletopState:
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TabletopObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {str(params)[:80]}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TabletopObserver(perfect_recall)


class TabletopState(pyspiel.State):
    """A game in progress: the engine state after the opening chance node, plus each seat's
    running digest of what it has seen (its perfect-recall information state)."""

    def __init__(self, game: TabletopGame) -> None:
        super().__init__(game)
        # Plain data, not the game object: OpenSpiel may hand the state a game rebuilt in C++
        # whose Python attributes are gone (random_sim_test does), so read what it says.
        params = game.get_parameters()
        self.name = game.get_type().short_name.removeprefix("tabletop_")
        self.players = int(params["players"])
        self.variant = str(params["variant"])
        self.catalogue = catalogue(self.name)
        self.engine: Any = None  # set by the opening chance node
        self.seen = [b""] * self.players
        # Per seat, the history bucket of every move it saw (its own and others' visible
        # choices; a hidden choice as "?"), in order: the bag part of the info-state tensor.
        self.moves: list[list[int]] = [[] for _ in range(self.players)]

    # --- the decision loop --------------------------------------------------------------------
    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        seat = self.engine.to_move()
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return core.legal_actions(self.catalogue, self.engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(s, 1.0 / SEEDS) for s in range(SEEDS)]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.engine = core.new_state(self.name, self.players, self.variant, int(action))
            self._remember(None)
            return
        option_id = self.catalogue.ids[action]
        seen_by = self.engine.option_audience(option_id)
        mover = self.engine.to_move()
        self.engine.apply(option_id)
        self._remember((mover, option_id, seen_by))

    def _remember(self, choice: tuple[int, str, Any] | None) -> None:
        for seat in range(self.players):
            h = hashlib.blake2b(self.seen[seat], digest_size=16)
            if choice is not None:
                mover, option_id, audience = choice
                visible = audience is None or seat in audience or seat == mover
                token = f"{mover}:{option_id if visible else '?'}"
                h.update(token.encode())
                self.moves[seat].append(_history_bucket(token))
            h.update(orjson.dumps(self.engine.observation(seat), option=orjson.OPT_SORT_KEYS))
            self.seen[seat] = h.digest()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed:{action}"
        return self.catalogue.ids[action]

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_over()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        return core.terminal_rewards(self.engine)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TabletopState:
        """A state ``player_id`` cannot tell from this one, hidden information re-sampled by the
        engine (``arena.sdk.sample_state``) from a seed drawn with ``probability_sampler``."""
        if self.engine is None:
            return self.clone()
        seed = int(probability_sampler() * (1 << 31))
        out = TabletopState(self.get_game())
        out.engine = sample_state(self.name, self.engine.observation(player_id), seed)
        # Only the player's own recall is kept: the other seats' digests hash what *they* saw
        # in the real world, which the player cannot know. Theirs start afresh from what they
        # see in the sampled world (so their information states differ from the real ones).
        out.seen = [self.seen[seat] if seat == player_id else
                    hashlib.blake2b(b"resampled:" + orjson.dumps(
                        out.engine.observation(seat), option=orjson.OPT_SORT_KEYS),
                        digest_size=16).digest()
                    for seat in range(self.players)]
        out.moves = [list(self.moves[seat]) if seat == player_id else []
                     for seat in range(self.players)]
        return out

    def __str__(self) -> str:
        return "chance: engine seed" if self.engine is None else core.board_text(self.engine)


@cache
def _history_bucket(token: str) -> int:
    """The bag bucket of one seen move ``"<mover>:<option id or ?>"`` (crc32, like the vector)."""
    return zlib.crc32(token.encode()) % HISTORY_SIZE


class TabletopObserver:
    """The PyObserver: the encoded vector, and JSON strings (plus the recall digest).

    With perfect recall (the information state) the tensor is :data:`INFO_STATE_SIZE` floats in
    three parts (``dict``): ``observation`` (the 2048-float vector of the current observation),
    ``history`` (bucket ``crc32("<mover>:<option id>") mod 2048`` counts one for each move the
    seat saw, a choice hidden from it as ``"<mover>:?"``: at most ``MAX_GAME_LENGTH``) and
    ``digest`` (the 128 bits, 0 or 1, of the blake2b digest chained over every observation the
    seat had and every move it saw — the same digest as ``information_state_string``). Why the
    digest: a bag of moves and the current observation do not tell every two histories apart,
    and CFR-style algorithms must never merge two information states; the bits do (up to a
    2⁻¹²⁸ collision), while the other two parts are what a network can generalise from.
    """

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(INFO_STATE_SIZE if perfect_recall else SIZE, np.float32)
        self.dict = {"observation": self.tensor[:SIZE]}
        if perfect_recall:
            self.dict["history"] = self.tensor[SIZE:SIZE + HISTORY_SIZE]
            self.dict["digest"] = self.tensor[SIZE + HISTORY_SIZE:]

    def set_from(self, state: TabletopState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0)
            return
        self.tensor[:SIZE] = encode(core.compact_observation(state.engine, player))
        if self.perfect_recall:
            self.dict["history"][:] = np.bincount(state.moves[player], minlength=HISTORY_SIZE)
            bits = np.unpackbits(np.frombuffer(state.seen[player], np.uint8))
            self.dict["digest"][:] = bits

    def string_from(self, state: TabletopState, player: int) -> str:
        if state.engine is None:
            return f"p{player} before the deal"
        text = orjson.dumps(state.engine.observation(player), option=orjson.OPT_SORT_KEYS).decode()
        return f"{text} #{state.seen[player].hex()}" if self.perfect_recall else text


def _game_class(game: str) -> type[TabletopGame]:
    """A class per game: ``pyspiel.register_game`` wants a class (a plain factory function
    registered there makes the interpreter abort at exit)."""

    def __init__(self: TabletopGame, params: Any = None) -> None:
        TabletopGame.__init__(self, game, params)

    title = "".join(part.title() for part in game.split("_"))
    return type(f"Tabletop{title}Game", (TabletopGame,), {"__init__": __init__})


#: The registered game classes by game name.
GAME_CLASSES: dict[str, type[TabletopGame]] = {}


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for game in GAMES:
        GAME_CLASSES[game] = _game_class(game)
        if f"tabletop_{game}" not in registered:
            pyspiel.register_game(_game_type(game), GAME_CLASSES[game])


_register()


class EngineRolloutEvaluator:
    """An ``mcts.Evaluator`` whose rollouts play the engine itself, uniformly at random.

    Why not OpenSpiel's ``RandomRolloutEvaluator``: it steps the Python ``TabletopState``, which
    keeps every seat's information-state digest up to date (an observation per seat per move);
    a rollout needs none of that, and the bare engine is ~100x faster. Priors are uniform.
    """

    def __init__(self, rollouts: int, rng: random.Random) -> None:
        self.rollouts, self.rng = rollouts, rng

    def evaluate(self, state: TabletopState) -> Any:
        total = np.zeros(state.players)
        for _ in range(self.rollouts):
            engine = state.engine.clone()
            while not engine.is_over():
                engine.apply(self.rng.choice(engine.option_ids()))
            total += core.terminal_rewards(engine)
        return total / self.rollouts

    def prior(self, state: TabletopState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


def mcts_move(state: Any, simulations: int = 50, determinisations: int = 4, seed: int = 0,
              budget: float | None = None, clock: Callable[[], float] = time.process_time) -> int:
    """A move for the player to move, by OpenSpiel's Python MCTS over determinised states.

    Why determinisation: MCTS needs a state whose hidden parts are known; each of
    ``determinisations`` runs of ``open_spiel.python.algorithms.mcts.MCTSBot`` searches a state
    re-sampled with :meth:`TabletopState.resample_from_infostate` (engine rollouts:
    :class:`EngineRolloutEvaluator`), and the action most visited at the roots, summed, is played.

    ``budget``: seconds of ``clock`` (CPU time of the process by default) instead of a count:
    determinisations of ``simulations`` simulations each (the first only 5, to measure their
    cost) follow one another until the budget is spent, each cut to what the remaining time fits
    — so a match against another bot can give both the same CPU per decision.
    """
    from open_spiel.python.algorithms import mcts

    player = state.current_player()
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    start = clock()
    deadline = None if budget is None else start + budget
    rng = random.Random(seed)
    visits: dict[int, int] = {}
    game = state.get_game()
    done = 0
    k = 0
    while (k < determinisations) if deadline is None else (k == 0 or clock() < deadline):
        sims = simulations
        if deadline is not None:  # a short first search measures the cost of a simulation
            per_sim = (clock() - start) / done if done else 0.0
            sims = min(simulations, 5) if not done else max(1, min(simulations, int((deadline - clock()) / per_sim)))
        world = state.resample_from_infostate(player, rng.random)
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims,
                           evaluator=EngineRolloutEvaluator(1, random.Random(seed * 31 + k)),
                           random_state=np.random.RandomState((seed + k) % 2**32), solve=False)
        root = bot.mcts_search(world)
        for child in root.children:
            visits[child.action] = visits.get(child.action, 0) + child.explore_count
        done += sims
        k += 1
    allowed = set(legal)
    return max((a for a in visits if a in allowed), key=lambda a: (visits[a], -a))
