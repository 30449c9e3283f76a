"""``--bot`` of the author commands: an id, or a bot's name; never a traceback."""

from __future__ import annotations

import click
import pytest

from arena.cli.author import _bot_id


class _NoBots:
    def bots(self, game: str = "") -> list:
        return []


def test_an_ascii_id_is_taken_as_is() -> None:
    assert _bot_id(_NoBots(), "42", "") == 42


@pytest.mark.parametrize("text", ["²", "١٢", str(2**63), "9" * 40])
def test_an_odd_or_huge_number_is_a_usage_error(text: str) -> None:
    with pytest.raises(click.UsageError):
        _bot_id(_NoBots(), text, "")
