"""The conformance kit itself: it passes a correct engine and catches broken ones."""

from __future__ import annotations

from typing import Any

import pytest

from referee.conformance import ConformanceError, check_configuration, configurations
from referee.engine import IllegalAction, Option
from tests.toy_game import ToyState


@pytest.mark.parametrize(("players", "variant"), configurations(ToyState))
def test_toy_game_conforms(players: int, variant: str, full_run: bool) -> None:
    stats = check_configuration(ToyState, players, variant, games=200 if full_run else 30)
    assert stats.games == (200 if full_run else 30)
    assert stats.checks.get("determinise-changed", 0) > 0


class LeakyObservation(ToyState):
    def observation(self, seat: int) -> dict[str, Any]:
        return {**super().observation(seat), "hands": [list(h) for h in self.hands]}


class MutatesOnIllegal(ToyState):
    def apply(self, option_id: str) -> list[str]:
        self.scores[0] += 1
        if option_id not in self.option_ids():
            raise IllegalAction(option_id)
        self.scores[0] -= 1
        return super().apply(option_id)


class AcceptsAnything(ToyState):
    def apply(self, option_id: str) -> list[str]:
        if option_id not in self.option_ids():
            return []
        return super().apply(option_id)


class EmptyOptions(ToyState):
    def legal_options(self) -> list[Option]:
        if self.round == 2:
            return []
        return super().legal_options()


class SharedClone(ToyState):
    def clone(self) -> ToyState:
        twin = super().clone()
        twin.scores = self.scores
        twin.hands = self.hands
        return twin


class NonDeterministic(ToyState):
    _counter = 0

    def _score_round(self) -> list[str]:
        NonDeterministic._counter += 1
        self.scores[NonDeterministic._counter % self.players] += 1
        return super()._score_round()


class BadRoundTrip(ToyState):
    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["phase"] = "play"
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToyState:
        s = super().from_json(data)
        s.round = 0
        return s


@pytest.mark.parametrize(
    "broken",
    [LeakyObservation, MutatesOnIllegal, AcceptsAnything, EmptyOptions, SharedClone, NonDeterministic, BadRoundTrip],
)
def test_kit_catches_broken_engines(broken: type[ToyState]) -> None:
    with pytest.raises(ConformanceError):
        check_configuration(broken, 3, "dice", games=5)
