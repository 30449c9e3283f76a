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

#: Every field of the state by its rulebook term (black-angel.ko.txt), so a reader finds a rule by
#: name. Seats are 0..players-1; per-colour lists are [orange, gray, green]; actions are 0..5
#: for the rulebook's 1..6; a hex is strip_id*5 + row (space.py).
GLOSSARY: dict[str, str] = {
    "players": "player count (1-4)",
    "variant": "base / advanced (상급자 규칙) / solo… (1인 게임, difficulty)",
    "seed": "the match seed every shuffle and roll comes from",
    "adv": "상급자 규칙: advanced rules (boost sides, draw 2 keep 1)",
    "solo": "1인 게임: solitaire against Hal",
    "neutral": "2인 게임: the neutral player joins",
    "hal_vp": "할의 디스크: Hal's VP on the score track",
    "spes_token": "희망 행성 토큰: the strip carrying the Spes token (-1 once removed)",
    "spes_tile": "희망 행성 타일: the strip whose middle hex is Spes (-1 until it comes into view)",
    "spes_reached": "블랙 엔젤 피규어가 희망 행성에 도착: the Black Angel reached Spes",
    "advances": "시퀀스 B 3: Black Angel advances so far",
    "seat": "whose decision it is",
    "round": "라운드: the round number, from 1",
    "end_trig": "[5] 게임 종료 조건: the end is triggered (this round, then one more)",
    "last_round": "the round after which the game ends (-1 until triggered)",
    "over": "the game is over",
    "phase": "the decision asked now (decisions.py registry)",
    "last_seq": "your last sequence, A or B (Hal reads the top or bottom half of his card)",
    "vp": "승점 트랙: each seat's VP",
    "supply": "주사위 공급처: dice in the supply per colour",
    "sdmg": "손상된 주사위: damaged dice in the supply per colour",
    "dmg": "액션 손상 칸: damage cubes on each action (0-2)",
    "rav_deck": "약탈자 카드 더미: the Ravager deck (top = last)",
    "rav_disc": "약탈자 버리는 카드 더미: the Ravager discard pile",
    "t_disc": "기술 타일 버리는 더미: tiles pushed off the technology display",
    "display": "기술 타일 디스플레이: the 6 display spaces (first two cost 2), -1 empty",
    "a_deck": "고급 기술 타일 더미: the hidden advanced technology deck",
    "a_disp": "고급 기술 타일 놓는 곳: the 4 face-up advanced tiles, -1 empty",
    "strips": "우주 타일: strip ids in order, nearest the Black Angel board first",
    "side": "우주 타일 면: the side shown of each strip id",
    "res": "자원 보관소: each seat's resources",
    "deb": "잔해 큐브 보관소: each seat's debris in storage",
    "shp": "우주선 보관소: each seat's ships in storage",
    "rbreak": "휴게실: each seat's robots in the Black Angel's break room",
    "rsup": "공급처의 로봇: each seat's robots in the supply",
    "nwork": "2인 게임: the neutral robot on each workstation (1 = still there)",
    "hal_deck": "할의 카드 더미: Hal's hidden deck",
    "hal_disc": "할의 버린 카드 더미: Hal's discards",
    "hal_card": "Hal's card revealed this turn",
    "opening": "what set-up did, as event lines",
    "comp": "플레이어 객실: each compartment's dice codes (colour, face, 보안구역 bit); the "
            "neutral player's or Hal's compartment last",
    "rav_on": "약탈자 카드 놓는 곳: the Ravager cards on each action (top = last, at most 3)",
    "m_deck": "미션 카드 더미: the mission decks per colour",
    "m_disc": "미션 카드 버리는 더미: the mission discards per colour",
    "t_stack": "기술 타일 더미: the technology stacks per colour",
    "ships": "우주 보드의 우주선: [owner, hex] of every ship in space (-1 = Hal)",
    "hand_m": "손패 (미션): each seat's missions in hand",
    "hand_r": "손패 (약탈자): each seat's Ravager cards in hand",
    "known_r": "격파한 약탈자: the Ravagers of each hand that every seat saw destroyed from an action "
               "(face up) and taken into it, in the order taken; a Ravager played from the hand leaves",
    "slots": "카드 1장 플레이하는 곳: the 6 card slots (R1-R3, C1-C3) of each board, -1 empty",
    "grid": "기술 격자 (3×3): each seat's tiles, cells 0-8 row by row, -1 empty",
    "boost": "부스트 면: 1 where a tile shows its boost side (advanced rules)",
    "gdeb": "번개 칸의 잔해 큐브: 1 where debris sits on a tile's lightning space",
    "work": "워크스테이션: each seat's robots on the orange, gray and green workstations",
    "ej_tiles": "배출된 기술 타일: technology tiles each seat pushed out of its grid",
    "ej_adv": "배출된 고급 기술 타일 놓는 칸: the 3 spaces for ejected advanced tiles",
    "ej_over": "advanced tiles ejected once those 3 spaces were full (cap 4)",
    "ej_cards": "배출된 미션 카드 놓는 칸: ejected missions per seat and colour",
    "rng": "the seeded generator (its state is part of the game)",
    "cards": "우주 보드 외계인 지역의 미션 카드: hex -> [mission, owner] (-1 = Hal)",
    "ctx": "what the decision in progress has chosen so far (die, action, value …)",
    "log": "the event lines of the last applied option",
    "_opts": "cache of the legal options",
}

# Fields by how deep a copy they need. Every field is JSON-ready as it is.
_SCALARS = ("players", "variant", "seed", "adv", "solo", "neutral", "hal_vp", "spes_token",
            "spes_tile", "spes_reached", "advances", "seat", "round", "end_trig", "last_round",
            "over", "phase", "last_seq")
_LISTS = ("vp", "supply", "sdmg", "dmg", "rav_deck", "rav_disc", "t_disc", "display", "a_deck",
          "a_disp", "strips", "side", "res", "deb", "shp", "rbreak", "rsup", "nwork", "hal_deck",
          "hal_disc", "hal_card", "opening")
_LISTS2 = ("comp", "rav_on", "m_deck", "m_disc", "t_stack", "ships", "hand_m", "hand_r", "known_r", "slots",
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

    def option_audience(self, option_id: str) -> tuple[int, ...] | None:
        """Which card of its hidden hand a seat plays face down (``card:m18``, ``card:r``) or
        keeps of the two it drew (``keep:``) is the seat's secret; every other choice is public
        (a discarded or placed mission is face up at once)."""
        if option_id.startswith(("card:", "keep:")):
            return (self.seat,)
        return None

    def decision_prompt(self) -> str:
        return PROMPTS.get(self.phase, self.phase)

    def fallback_option(self) -> str:
        """A forfeited seat's move: the one that disturbs the other seats least (fallback.py)."""
        from referee.black_angel.fallback import fallback_option

        return fallback_option(self)

    # --- views --------------------------------------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        from referee.black_angel.views import observation

        return observation(self, seat)

    def spectator_view(self) -> dict[str, Any]:
        from referee.black_angel.views import spectator_view

        return spectator_view(self)

    def public_view(self) -> dict[str, Any]:
        """Everything but hands, face-down cards and deck orders: what live spectators see."""
        from referee.black_angel.views import public_view

        return public_view(self)

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
                if f == "known_r" and f not in data:  # a record from before known_r: none known
                    s.known_r = [[] for _ in data["hand_r"]]
                    continue
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
