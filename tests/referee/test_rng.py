"""The engines' generator (referee/rng.py): its inlined shuffle is Fisher-Yates over ``below``."""

from __future__ import annotations

from referee.rng import Rng


def _plain_shuffle(rng: Rng, seq: list[int]) -> None:
    for i in range(len(seq) - 1, 0, -1):
        j = rng.below(i + 1)
        seq[i], seq[j] = seq[j], seq[i]


def test_shuffle_is_fisher_yates_over_below() -> None:
    """The same permutation and the same generator state afterwards, for deck sizes within the
    precomputed rejection bounds and beyond them: every recorded match replays the same."""
    for n in (0, 1, 2, 7, 83, 119, 255, 256, 300):
        for seed in (0, 1, 2**63 + 5, 12345):
            plain, fast = list(range(n)), list(range(n))
            r1, r2 = Rng(seed), Rng(seed)
            _plain_shuffle(r1, plain)
            r2.shuffle(fast)
            assert fast == plain and r2.state == r1.state
