"""Builders for constructed-state rules tests: a started game with a cleared, known board."""

from __future__ import annotations

from referee.black_angel import board as B
from referee.black_angel import space as S
from referee.black_angel.state import BlackAngelState


def started(players: int = 2, variant: str = "base", seed: int = 7) -> BlackAngelState:
    """A new game past the setup decisions, seat 0 to choose a sequence."""
    s = BlackAngelState.new(players, seed, variant)
    while s.phase == "setup_reserve":
        s.apply("none")
    return s


def blank(players: int = 2, variant: str = "base", seed: int = 7) -> BlackAngelState:
    """A started game with no damage, no Ravagers in play, empty hands and no dice anywhere."""
    s = started(players, variant, seed)
    s.dmg = [0] * 6
    s.rav_on = [[] for _ in range(6)]
    s.sdmg = [0, 0, 0]
    for comp in s.comp:
        for code in comp:
            B.return_die(s, code)
        comp.clear()
    for p in range(players):
        s.hand_m[p] = []
        s.hand_r[p] = []
    s._opts = None
    return s


def give_die(s: BlackAngelState, owner: int, colour: int, face: int, secure: bool = False) -> None:
    s.supply[colour] -= 1
    s.comp[owner].append(B.die(colour, face, 1 if secure else 0))
    s._opts = None


def at(s: BlackAngelState, position: int, row: int) -> int:
    """The hex key of the hex at strip position (0-based) and row (0-based)."""
    return s.strips[position] * S.H + row


def play(s: BlackAngelState, *ids: str) -> list[str]:
    log: list[str] = []
    for i in ids:
        log += s.apply(i)
    return log


def ids(s: BlackAngelState) -> list[str]:
    return s.option_ids()
