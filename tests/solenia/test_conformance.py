"""The generic conformance kit on every Solenia configuration (issue 3: 200 games with --full)."""

from __future__ import annotations

import pytest

from referee.conformance import check_configuration, configurations
from referee.solenia.state import SoleniaState


@pytest.mark.parametrize(("players", "variant"), configurations(SoleniaState))
def test_conformance(players: int, variant: str, full_run: bool) -> None:
    games = 200 if full_run else 3
    stats = check_configuration(SoleniaState, players, variant, games, deep_games=2 if not full_run else 5)
    assert stats.games == games
    assert stats.checks.get("determinise-changed", 0) > 0
    assert stats.checks["observations-validated"] == stats.decisions  # every decision, strictly


def test_every_configuration_is_listed() -> None:
    # solenia.ko.txt 1인용 규칙: solo plays summer, winter or winter with technology.
    assert set(configurations(SoleniaState)) == {
        (p, v) for p in (1, 2, 3, 4) for v in ("summer", "winter", "winter-tech")
    }
