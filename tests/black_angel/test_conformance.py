"""The generic engine-contract kit, for every Black Angel configuration (200 games under --full)."""

from __future__ import annotations

import pytest

from referee.black_angel.state import BlackAngelState
from referee.conformance import check_configuration, configurations


@pytest.mark.parametrize("players,variant", configurations(BlackAngelState))
def test_conformance(players: int, variant: str, full_run: bool) -> None:
    games = 200 if full_run else 5  # 14 configurations: the short form keeps CI quick
    stats = check_configuration(BlackAngelState, players, variant, games)
    assert stats.games == games
    assert stats.checks.get("determinise-changed", 0) > 0  # hidden information really is re-sampled
    assert stats.checks["observations-validated"] == stats.decisions  # every decision, strictly
