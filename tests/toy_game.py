"""A tiny card game used to exercise the referee and the conformance kit.

It has exactly the features the contract must cope with, and nothing else: hidden hands, a
shuffled deck, die rolls in one variant, and a turn split into two decisions (play a card, then
draw or pass). Rounds: every seat plays one card; the highest card (plus a die in "dice") scores
a point, ties all score. The game ends after ``ROUNDS`` rounds.
"""

from __future__ import annotations

from typing import Any

from referee.engine import GameSpec, GameState, Option, Result, TimeControl, competition_ranks
from referee.rng import Rng

ROUNDS = 4
DECK = list(range(1, 16))


class ToyState(GameState):
    spec = GameSpec(
        name="toy",
        title="Toy High Card",
        configurations=tuple((p, v) for p in (2, 3, 4) for v in ("base", "dice")),
        default_variant="base",
        time_control=TimeControl(decision_ms=2000, bank_ms=5000),
    )

    __slots__ = ("players", "variant", "seed", "rng", "deck", "hands", "table", "scores", "seat", "phase", "round")

    @classmethod
    def new(cls, players: int, seed: int, variant: str | None = None) -> ToyState:
        variant = cls.spec.check(players, variant)
        s = cls.__new__(cls)
        s.players, s.variant, s.seed = players, variant, seed
        s.rng = Rng(seed)
        s.deck = DECK[:]
        s.rng.shuffle(s.deck)
        s.hands = [sorted(s.deck.pop() for _ in range(3)) for _ in range(players)]
        s.table = [0] * players
        s.scores = [0] * players
        s.seat, s.phase, s.round = 0, "play", 0
        return s

    def to_move(self) -> int | None:
        return None if self.round >= ROUNDS else self.seat

    def legal_options(self) -> list[Option]:
        if self.round >= ROUNDS:
            return []
        if self.phase == "play":
            return [Option(f"play:{c}", f"play card {c}") for c in self.hands[self.seat]]
        opts = [Option("pass", "keep the hand as it is")]
        if self.deck:
            opts.append(Option("draw", "draw a card"))
        return opts

    def apply(self, option_id: str) -> list[str]:
        if option_id not in {o.id for o in self.legal_options()}:
            raise self.illegal(option_id)
        seat = self.seat
        if self.phase == "play":
            card = int(option_id.split(":")[1])
            self.hands[seat].remove(card)
            self.table[seat] = card
            self.phase = "draw"
            return [f"seat {seat} plays {card}"]
        events = []
        if option_id == "draw":
            self.hands[seat].append(self.deck.pop())
            self.hands[seat].sort()
            events.append(f"seat {seat} draws a card")
        self.phase = "play"
        self.seat = (seat + 1) % self.players
        if self.seat == 0:
            events += self._score_round()
        if self.round < ROUNDS and not self.hands[self.seat]:
            self.round = ROUNDS
            events.append(f"seat {self.seat} has no card left: the game ends")
        return events

    def _score_round(self) -> list[str]:
        values = list(self.table)
        if self.variant == "dice":
            values = [v + self.rng.randint(1, 6) for v in values]
        best = max(values)
        events = []
        for seat, v in enumerate(values):
            if v == best:
                self.scores[seat] += 1
                events.append(f"seat {seat} wins round {self.round + 1} with {v}")
        self.table = [0] * self.players
        self.round += 1
        return events

    def observation(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "table": list(self.table),
            "scores": list(self.scores),
            "round": self.round,
            "phase": self.phase,
        }

    def spectator_view(self) -> dict[str, Any]:
        return {**self.observation(0), "hands": [list(h) for h in self.hands], "deck": list(self.deck)}

    def clone(self) -> ToyState:
        s = type(self).__new__(type(self))
        s.players, s.variant, s.seed = self.players, self.variant, self.seed
        s.rng = self.rng.copy()
        s.deck = self.deck[:]
        s.hands = [h[:] for h in self.hands]
        s.table, s.scores = self.table[:], self.scores[:]
        s.seat, s.phase, s.round = self.seat, self.phase, self.round
        return s

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "variant": self.variant, "seed": self.seed,
            "rng": self.rng.state, "deck": self.deck, "hands": self.hands, "table": self.table,
            "scores": self.scores, "seat": self.seat, "phase": self.phase, "round": self.round,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToyState:
        s = cls.__new__(cls)
        s.players, s.variant, s.seed = data["players"], data["variant"], data["seed"]
        s.rng = Rng(data["rng"])
        s.deck = list(data["deck"])
        s.hands = [list(h) for h in data["hands"]]
        s.table, s.scores = list(data["table"]), list(data["scores"])
        s.seat, s.phase, s.round = data["seat"], data["phase"], data["round"]
        return s

    def determinise(self, seat: int, seed: int) -> ToyState:
        s = self.clone()
        rng = Rng(seed)
        pool = s.deck + [c for i, h in enumerate(s.hands) if i != seat for c in h]
        rng.shuffle(pool)
        for i in range(s.players):
            if i != seat:
                n = len(s.hands[i])
                s.hands[i] = sorted(pool[:n])
                pool = pool[n:]
        s.deck = pool
        s.rng = Rng(rng.next64())
        return s

    def result(self) -> Result:
        return Result(tuple(float(x) for x in self.scores), competition_ranks(list(self.scores)))
