"""Orbital: a secret discard makes the publicly known cards of a hand *maybe* cards, not unknown.

star-scrappers-orbital.ko.txt 한 해의 끝 5 (카드 뽑기: over the hand limit the rest is discarded) and
Quiet Year discard face down (referee/orbital/RULES_NOTES.md): nobody else knows which card left,
but only one did, so all but at most one of the cards everyone saw go in are still there.
"""

from __future__ import annotations

import random

import orjson

from arena.sdk import sample_state
from referee import registry
from referee.orbital import rules
from referee.rng import Rng


def test_deal_maybe_keeps_all_but_the_cards_that_may_have_left() -> None:
    for seed in range(200):
        stay, out = rules.deal_maybe([10, 11, 12], 1, set(), room=6, rng=Rng(seed))
        assert sorted(stay + out) == [10, 11, 12] and len(out) <= 1
    # a maybe card seen elsewhere surely left: it is the one secret discard, the rest stay
    stay, out = rules.deal_maybe([10, 11, 12], 1, {11}, room=6, rng=Rng(1))
    assert sorted(stay) == [10, 12] and out == []
    # a hand with room for one card only keeps one of them, whatever the draw
    stay, out = rules.deal_maybe([10, 11], 2, set(), room=1, rng=Rng(3))
    assert len(stay) == 1 and len(out) == 1


def _secret_discard_with_known_cards() -> tuple[object, int, list[int]]:
    """A 3-player game just after a seat with publicly known cards discarded one in secret."""
    for seed in range(60):
        st = registry.new_game("orbital", 3, seed, None)
        r = random.Random(seed)
        while not st.is_over():
            before = [k[:] for k in st.known]
            lines = st.apply(r.choice(st.option_ids()))
            for a in range(3):
                if before[a] and any(
                    line == f"P{a + 1} discards a card over the hand limit" for line in lines
                ):
                    return st, a, before[a]
    raise AssertionError("no secret discard from a hand with known cards in 60 games")


def test_a_secret_discard_moves_the_known_cards_to_maybe() -> None:
    st, a, known = _secret_discard_with_known_cards()
    assert st.known[a] == [] and st.maybe[a] == known and st.gone[a] == 1
    seat = next(s for s in range(3) if s != a)
    obs = orjson.loads(orjson.dumps(st.observation(seat)))
    assert [c["id"] for c in obs["maybe_hands"][a]] == obs["raw"]["maybe_hands"][a] == known
    assert obs["maybe_gone"][a] == 1
    kept_counts = set()
    for k in range(60):
        sampled = sample_state("orbital", obs, seed=k)
        for s in (sampled, sampled.determinise(seat, k)):
            kept = [c for c in known if c in s.hands[a]]
            assert len(kept) >= len(known) - 1
            for c in set(known) - set(kept):  # the one that left lies face down on the pile
                assert c in s.discard or c in s.hands[seat]
            kept_counts.add(len(kept))
            assert orjson.loads(orjson.dumps(s.observation(seat))) == obs
    # the one that left is sometimes a known card and sometimes not
    assert kept_counts == {len(known) - 1, len(known)}
