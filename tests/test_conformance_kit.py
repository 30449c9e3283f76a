"""The conformance kit itself: it passes a correct engine and catches broken ones."""

from __future__ import annotations

from typing import Any

import pytest

from referee.conformance import ConformanceError, check_configuration, configurations
from referee.engine import IllegalAction, Option, seen_by
from tests.toy_game import ROUNDS, ToyState


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


# --- audiences: live lines, live choices and the public view -------------------------------------
class LeakyDrawLine(ToyState):
    """Tells everyone which card was drawn (the honest toy says only that a card was drawn)."""

    def apply(self, option_id: str) -> list[str]:
        seat, before = self.seat, list(self.hands[self.seat])
        events = super().apply(option_id)
        if option_id == "draw":
            (card,) = [c for c in self.hands[seat] if c not in before]
            events.append(f"seat {seat} draws card {card}")
        return events


class PrivateDrawLine(LeakyDrawLine):
    """The same line, shown to the drawing seat only: allowed."""

    def apply(self, option_id: str) -> list[str]:
        seat = self.seat
        return [seen_by(seat, e) if " draws card " in e else e for e in super().apply(option_id)]


class LeakyBury(ToyState):
    """Instead of drawing, a seat may bury a card of its hand face down under the deck; the
    option id names the card but is shown to everyone."""

    def legal_options(self) -> list[Option]:
        opts = super().legal_options()
        if self.round < ROUNDS and self.phase == "draw" and len(self.hands[self.seat]) > 1:
            opts += [Option(f"bury:{c}", f"bury card {c}") for c in self.hands[self.seat]]
        return opts

    def apply(self, option_id: str) -> list[str]:
        if option_id.startswith("bury:") and option_id in self.option_ids():
            self.hands[self.seat].remove(int(option_id[5:]))
            self.deck.insert(0, int(option_id[5:]))
            return [f"seat {self.seat} buries a card"] + super().apply("pass")
        return super().apply(option_id)


class PrivateBury(LeakyBury):
    def option_audience(self, option_id: str) -> tuple[int, ...] | None:
        return (self.seat,) if option_id.startswith("bury:") else None


class LeakyPublicView(ToyState):
    def public_view(self) -> dict[str, Any]:
        return {**super().public_view(), "hands": [list(h) for h in self.hands]}


@pytest.mark.parametrize("leaky", [LeakyDrawLine, LeakyBury, LeakyPublicView])
def test_kit_catches_leaks_to_live_spectators(leaky: type[ToyState]) -> None:
    with pytest.raises(ConformanceError, match="audience|option_audience|public_view"):
        check_configuration(leaky, 3, "base", games=5)


@pytest.mark.parametrize("honest", [PrivateDrawLine, PrivateBury])
def test_kit_accepts_hidden_information_with_its_audience(honest: type[ToyState]) -> None:
    stats = check_configuration(honest, 3, "base", games=5)
    assert stats.checks.get("audience-compared", 0) > 0


def test_default_public_view_keeps_only_what_every_seat_sees() -> None:
    state = ToyState.new(3, 4, "base")
    view = state.public_view()
    assert view["hand_sizes"] == [3, 3, 3] and view["deck_size"] == state.observation(0)["deck_size"]
    assert all(card is None for card in view["hand"])  # every seat sees its own hand: no one's


class AudienceOfNoSeat(ToyState):
    def apply(self, option_id: str) -> list[str]:
        return [seen_by(self.players, e) for e in super().apply(option_id)]


def test_kit_catches_an_audience_that_names_no_seat() -> None:
    with pytest.raises(ConformanceError, match="has audience"):
        check_configuration(AudienceOfNoSeat, 2, "base", games=1)
