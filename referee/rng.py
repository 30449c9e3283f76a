"""A small deterministic random generator whose whole state is one integer.

Why not :mod:`random`: its state is 625 words (slow to clone, bulky to serialise) and its
``shuffle``/``randrange`` algorithms are not promised to stay the same across Python versions.
A match must replay identically from its seed forever, so engines use this instead.
The generator is SplitMix64; ``below`` uses rejection sampling so every value is unbiased.
"""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
#: ``_LIMIT[n]``: the rejection bound of ``below(n)`` for the sizes decks come in
_LIMIT = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(256))  # below 256 only
#: Bits of a match seed: the generator keeps 64 bits of state; 63 fit a signed BIGINT column.
SEED_BITS = 63


def match_seed() -> int:
    """A fresh match seed from the OS's secure random source; it is shown only once the match is over.

    Seed + the live option ids would rebuild every hidden hand of a running match, so a seed
    must not be guessable from anything public (a tournament's seed, the match's table) nor
    searchable: the public board at the first decision (Black Angel's strips and tiles, say)
    tells almost every seed apart, so 31-bit seeds were found by trying them all (about two
    hours of one core in numpy, or at once from a table made in advance). 63 bits put that out
    of reach of a spectator, and of a bot in the match.
    """
    return secrets.randbits(SEED_BITS)


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = _LIMIT[n] if n < 256 else (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def randint(self, a: int, b: int) -> int:
        """A uniform integer in ``[a, b]`` (both ends included)."""
        return a + self.below(b - a + 1)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def shuffle(self, seq: MutableSequence[T]) -> None:
        """Fisher-Yates, in place: ``j = self.below(i + 1)`` for ``i`` from the end down, with
        ``below`` and ``next64`` inlined (an engine shuffles a deck of a hundred cards a few
        times a game, and the calls were a twentieth of a random Orbital game's time).
        tests/referee/test_rng.py checks it against that loop written plainly."""
        state = self.state
        for i in range(len(seq) - 1, 0, -1):
            k = i + 1
            limit = _LIMIT[k] if k < 256 else (1 << 64) - ((1 << 64) % k)
            while True:
                state = (state + _GAMMA) & _MASK
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                z ^= z >> 31
                if z < limit:
                    break
            j = z % k
            seq[i], seq[j] = seq[j], seq[i]
        self.state = state

    def random(self) -> float:
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def fork(self, salt: int) -> Rng:
        """A new independent generator derived from this one's state and ``salt``."""
        return Rng(self.state ^ ((salt * _GAMMA) & _MASK) ^ 0x5DEECE66D)

    def copy(self) -> Rng:
        return Rng(self.state)
