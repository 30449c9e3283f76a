"""Each engine's state module names every field by its rulebook term (issue 15, item 6)."""

from __future__ import annotations

import pytest

from referee.black_angel import state as black_angel_state
from referee.solenia import state as solenia_state


@pytest.mark.parametrize(("module", "cls", "variant"), [
    (black_angel_state, black_angel_state.BlackAngelState, "base"),
    (solenia_state, solenia_state.SoleniaState, "winter-tech"),
])
def test_every_state_field_is_in_the_glossary(module, cls, variant) -> None:  # type: ignore[no-untyped-def]
    s = cls.new(2, 1, variant)
    fields = set(getattr(s, "__dict__", {})) | {f for f in getattr(cls, "__slots__", ()) if hasattr(s, f)}
    missing = sorted(fields - set(module.GLOSSARY))
    assert not missing, missing
    assert all(len(text) > 8 for text in module.GLOSSARY.values())
    stale = sorted(f for f in module.GLOSSARY if not hasattr(s, f))
    assert not stale, stale
