"""The engine's fast paths agree with the plain rule functions they stand in for.

Why: option listing is the engine's hot loop, so some rules are computed twice — once plainly in
``rules``/``station`` (what tests and bots call) and once fused or cached in ``state`` — and a
speed-up must never change an option. Random games visit many stations; at every decision each
actor's fast answers are compared with the plain ones.
"""

from __future__ import annotations

import pytest

from referee.orbital import botplayer, rules
from referee.orbital import station as geo
from referee.orbital.data import CARD_COLOUR
from referee.orbital.state import OrbitalState, _build_list, _build_options
from referee.rng import Rng


@pytest.mark.parametrize(("players", "variant"), [(1, "competitive"), (1, "peaceful"), (3, "standard"), (2, "bots-2")])
def test_fast_paths_agree_with_the_rules(players: int, variant: str) -> None:
    pick = Rng(7)
    for seed in range(4):
        st = OrbitalState.new(players, seed, variant)
        while not st.is_over():
            for a in range(st.actors):
                mods = st.mods[a]
                assert rules.free_slots(st, a) == geo.free_slots(mods, False)
                assert rules.parents(st, a) == {m[geo.P] for m in mods}
                for effect in ("attack_end", "attack_any", "sabotage", "hull_breach", "meteor_storm", "quiet_year", "x"):
                    for bot in (False, True):
                        assert rules.has_target(st, a, effect, bot) == bool(rules.effect_targets(st, a, effect, bot))
                for via in ("", "build", "build_military"):
                    plain = _build_options(rules.build_options(st, a, via))
                    assert _build_list(st, a, rules.free_slots(st, a), via) == plain
                for card in st.hands[a]:
                    assert botplayer.choose_build(st, a, card) == _first_bot_build(st, a, card)
            opts = st.legal_options()
            st.apply(opts[pick.below(len(opts))].id)


def _first_bot_build(st: OrbitalState, a: int, card: int) -> tuple[int, int, int] | None:
    """봇 알고리즘's placement, plainly: the card's build options in placement order; the first on
    a module of the card's colour (the discount), else the first of all."""
    options = rules.build_options(st, a, ordered=True, only=card)
    if not options:
        return None
    same = [o for o in options if rules.colour_of(st, a, st.mods[a][o[1]]) == CARD_COLOUR[card]]
    _, p, d, cost = (same or options)[0]
    return p, d, cost
