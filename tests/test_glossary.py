"""Each engine's state module names every field by its rulebook term (issue 15, item 6)."""

from __future__ import annotations

import pytest

from referee.black_angel import state as black_angel_state
from referee.orbital import state as orbital_state
from referee.solenia import state as solenia_state


@pytest.mark.parametrize(("module", "cls", "players", "variant"), [
    (black_angel_state, black_angel_state.BlackAngelState, 2, "base"),
    (solenia_state, solenia_state.SoleniaState, 2, "winter-tech"),
    (orbital_state, orbital_state.OrbitalState, 2, "standard"),
    (orbital_state, orbital_state.OrbitalState, 2, "bots-1"),
    (orbital_state, orbital_state.OrbitalState, 1, "peaceful"),
    (orbital_state, orbital_state.OrbitalState, 1, "competitive"),
])
def test_every_state_field_is_in_the_glossary(module, cls, players, variant) -> None:  # type: ignore[no-untyped-def]
    s = cls.new(players, 1, variant)
    # a field first set in play (not at set-up) must be named too: play on a while
    for _ in range(60):
        if s.is_over():
            break
        s.apply(s.option_ids()[-1])
    fields = set(getattr(s, "__dict__", {})) | {f for f in getattr(cls, "__slots__", ()) if hasattr(s, f)}
    missing = sorted(fields - set(module.GLOSSARY))
    assert not missing, missing
    assert all(len(text) > 8 for text in module.GLOSSARY.values())
    stale = sorted(f for f in module.GLOSSARY if not hasattr(s, f))
    assert not stale, stale
