"""arena.quoting.shorten and the gRPC error mapper's bound on every status message."""

from __future__ import annotations

import grpc
import pytest

from arena.quoting import ELLIPSIS, MAX_QUOTED, shorten
from arena.server.errors import MAX_MESSAGE_BYTES, _status_of, invalid
from referee.engine import ConfigError


@pytest.mark.parametrize("value", ["", "carol", "x" * MAX_QUOTED])
def test_short_values_are_quoted_whole(value: str) -> None:
    assert shorten(value) == value


@pytest.mark.parametrize("limit", [1, 2, 10, 80])
def test_long_values_keep_their_start_within_the_limit(limit: int) -> None:
    out = shorten("abcdefghij" * 1000, limit)
    assert len(out) == limit and out.endswith(ELLIPSIS)
    assert "abcdefghij".startswith(out[:-1][:10])


def test_shorten_takes_any_object() -> None:
    assert shorten(ValueError("z" * 500), 20) == "z" * 19 + ELLIPSIS


@pytest.mark.parametrize("text", ["g" * 10_000, "é☃\n" * 5_000, "\U0001f600" * 3_000])
def test_every_status_message_is_bounded_in_bytes(text: str) -> None:
    """Whatever a handler's message quotes (here an engine error quoting a whole game name),
    the status message fits in MAX_MESSAGE_BYTES of UTF-8 and still starts with the text."""
    for exc in (invalid(f"unknown game {text!r}"), ConfigError(f"unknown game {text!r}")):
        code, message = _status_of(exc)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert len(message.encode()) <= MAX_MESSAGE_BYTES
        assert message.startswith("unknown game ") and message.endswith(ELLIPSIS)


def test_a_short_message_is_left_alone() -> None:
    assert _status_of(invalid("bot name 'x' is not valid")) == (grpc.StatusCode.INVALID_ARGUMENT, "bot name 'x' is not valid")
