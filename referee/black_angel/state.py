"""BlackAngelState: the Black Angel engine behind the platform's engine contract.

The state is plain ints and lists so that ``clone`` is a handful of list copies (search bots
clone thousands of times a second). Rules live in the topic modules (setup, sequence_a,
actions, sequence_b, space, scoring, hal, views); this module only holds the data, the
decision loop and the contract plumbing.
"""

from __future__ import annotations

from typing import Any

from referee.black_angel.decisions import PHASES, PROMPTS
from referee.engine import (
    ConfigError,
    GameSpec,
    GameState,
    IllegalAction,
    Option,
    Result,
    TimeControl,
)
from referee.rng import Rng

_VARIANT_HELP = {
    "base": "the base game; with 2 players the neutral player joins automatically",
    "advanced": "the advanced rules: boost sides with '1x' effects, draw 2 keep 1 (2-4 players)",
    "solo": "1 player against Hal at normal difficulty (Hal's disc starts at 5 VP)",
    "solo-advanced": "solo against Hal (normal difficulty) with the advanced rules",
    "solo-d0": "solo against Hal, easy: Hal starts at 0 VP",
    "solo-d10": "solo against Hal, hard: Hal starts at 10 VP",
    "solo-d15": "solo against Hal, very hard: Hal starts at 15 VP",
    "solo-advanced-d0": "solo against Hal with the advanced rules, easy (Hal starts at 0 VP)",
    "solo-advanced-d10": "solo against Hal with the advanced rules, hard (Hal starts at 10 VP)",
    "solo-advanced-d15": "solo against Hal with the advanced rules, very hard (Hal starts at 15 VP)",
}

SPEC = GameSpec(
    name="black_angel",
    title="Black Angel",
    configurations=(
        (2, "base"), (3, "base"), (4, "base"),
        (2, "advanced"), (3, "advanced"), (4, "advanced"),
        (1, "solo"), (1, "solo-advanced"), (1, "solo-d0"), (1, "solo-d10"), (1, "solo-d15"),
        (1, "solo-advanced-d0"), (1, "solo-advanced-d10"), (1, "solo-advanced-d15"),
    ),
    default_variant="base",
    description="Artificial intelligences steer the Black Angel to Spes (Pearl Games).",
    time_control=TimeControl(decision_ms=1000, bank_ms=20000),
    variant_help=_VARIANT_HELP,
)

# Fields by how deep a copy they need. Every field is JSON-ready as it is.
_SCALARS = ("players", "variant", "seed", "adv", "solo", "neutral", "hal_vp", "spes_token",
            "spes_tile", "spes_reached", "advances", "seat", "round", "end_trig", "last_round",
            "over", "phase", "last_seq")
_LISTS = ("vp", "supply", "sdmg", "dmg", "rav_deck", "rav_disc", "t_disc", "display", "a_deck",
          "a_disp", "strips", "side", "res", "deb", "shp", "rbreak", "rsup", "nwork", "hal_deck",
          "hal_disc", "hal_card", "opening")
_LISTS2 = ("comp", "rav_on", "m_deck", "m_disc", "t_stack", "ships", "hand_m", "hand_r", "slots",
           "grid", "boost", "gdeb", "work", "ej_tiles", "ej_adv", "ej_over")
_LISTS3 = ("ej_cards",)


class BlackAngelState(GameState):
    spec = SPEC

    __slots__ = _SCALARS + _LISTS + _LISTS2 + _LISTS3 + ("rng", "cards", "ctx", "log", "_opts")

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> BlackAngelState:
        variant = cls.spec.check(players, variant)
        from referee.black_angel.setup import set_up

        s = cls.__new__(cls)
        set_up(s, players, seed, variant)
        return s

    def opening_events(self) -> list[str]:
        """What set-up did, in order: the board, the opening Ravagers and their damage, each
        seat's opening roll and player-aid advantage, and the free reserved dice once chosen."""
        return self.opening[:]

    def trigger_end(self) -> None:
        """Finish this round, then play one more (rulebook [5])."""
        if not self.end_trig:
            self.end_trig = True
            self.last_round = self.round + 1
            self.log.append("the end of the game is triggered: this round, then one more")

    # --- the decision loop --------------------------------------------------------------------
    def to_move(self) -> int | None:
        return None if self.over else self.seat

    def _options(self) -> list[tuple[str, str]]:
        if self._opts is None:
            self._opts = [] if self.over else PHASES[self.phase][0](self)
        return self._opts

    def legal_options(self) -> list[Option]:
        return [Option(i, label) for i, label in self._options()]

    def option_ids(self) -> list[str]:
        return [i for i, _ in self._options()]

    def apply(self, option_id: str) -> list[str]:
        for oid, _ in self._options():
            if oid == option_id:
                break
        else:
            raise IllegalAction(
                f"option {option_id!r} is not legal now; legal: "
                + ", ".join(o for o, _ in self._options()[:12])
            )
        self.log = []
        self._opts = None
        PHASES[self.phase][1](self, option_id)
        self._opts = None
        return self.log

    def decision_prompt(self) -> str:
        return PROMPTS.get(self.phase, self.phase)

    def fallback_option(self) -> str:
        ids = self.option_ids()
        for safe in ("done", "nocard", "none", "noplace", "noboost", "B", "pass"):
            if safe in ids:
                return safe
        return ids[0]

    # --- views --------------------------------------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        from referee.black_angel.views import observation

        return observation(self, seat)

    def spectator_view(self) -> dict[str, Any]:
        from referee.black_angel.views import spectator_view

        return spectator_view(self)

    # --- copying ------------------------------------------------------------------------------
    def clone(self) -> BlackAngelState:
        c = BlackAngelState.__new__(BlackAngelState)
        for f in _SCALARS:
            setattr(c, f, getattr(self, f))
        for f in _LISTS:
            setattr(c, f, getattr(self, f)[:])
        for f in _LISTS2:
            setattr(c, f, [x[:] for x in getattr(self, f)])
        c.ej_cards = [[x[:] for x in y] for y in self.ej_cards]
        c.rng = Rng(self.rng.state)
        c.cards = {k: v[:] for k, v in self.cards.items()}
        c.ctx = {k: (v[:] if isinstance(v, list) else v) for k, v in self.ctx.items()}
        c.log = []
        c._opts = self._opts
        return c

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {f: getattr(self, f) for f in _SCALARS}
        for f in _LISTS:
            out[f] = getattr(self, f)[:]
        for f in _LISTS2:
            out[f] = [x[:] for x in getattr(self, f)]
        out["ej_cards"] = [[x[:] for x in y] for y in self.ej_cards]
        out["rng"] = self.rng.state
        out["cards"] = [[k, v[0], v[1]] for k, v in sorted(self.cards.items())]
        out["ctx"] = {k: (v[:] if isinstance(v, list) else v) for k, v in self.ctx.items()}
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BlackAngelState:
        try:
            s = cls.__new__(cls)
            for f in _SCALARS:
                setattr(s, f, data[f])
            for f in _LISTS:
                setattr(s, f, list(data[f]))
            for f in _LISTS2:
                setattr(s, f, [list(x) for x in data[f]])
            s.ej_cards = [[list(x) for x in y] for y in data["ej_cards"]]
            s.rng = Rng(int(data["rng"]))
            s.cards = {int(k): [int(a), int(b)] for k, a, b in data["cards"]}
            s.ctx = dict(data["ctx"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"not a Black Angel state: {exc}") from None
        s.log = []
        s._opts = None
        return s

    def determinise(self, seat: int, seed: int) -> BlackAngelState:
        from referee.black_angel.views import determinise

        return determinise(self, seat, seed)

    @classmethod
    def from_observation(cls, observation: dict[str, Any], seed: int = 0) -> BlackAngelState:
        from referee.black_angel.observed import state_from_observation

        try:
            return state_from_observation(observation, seed)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"not a Black Angel observation: {exc!r}") from None

    # --- the end ------------------------------------------------------------------------------
    def result(self) -> Result:
        from referee.black_angel.scoring import result

        return result(self)


# Importing the rule modules registers their decisions.
from referee.black_angel import actions as _actions  # noqa: E402,F401
from referee.black_angel import hal as _hal  # noqa: E402,F401
from referee.black_angel import sequence_a as _sequence_a  # noqa: E402,F401
from referee.black_angel import sequence_b as _sequence_b  # noqa: E402,F401
from referee.black_angel import setup as _setup  # noqa: E402,F401
