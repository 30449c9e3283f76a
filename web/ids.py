"""Numbers in URLs: ids and offsets a stranger typed, read so that none reaches the database
out of range.

The database's integers are signed 64-bit: ``/bots/9223372036854775808`` used to reach SQLite
as an integer it cannot bind (OverflowError, a 500). An id above :data:`MAX_ID` names nothing,
so it is a 404 like any unknown id; an offset above it is clamped. Only ASCII digits count:
``str.isdigit`` also accepts "²" and "١", which ``int`` then refuses or reads, and a number of
thousands of digits costs ``int`` real time (Python refuses past 4,300 digits).
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import IntegerConverter, ValidationError

#: Largest id a database row can have (a signed 64-bit integer).
MAX_ID = 2**63 - 1
#: Digits read at most: any longer number is out of range anyway.
_MAX_DIGITS = len(str(MAX_ID))


def parse_number(raw: str | None) -> int | None:
    """``raw`` (stripped) as a whole number >= 0 written in ASCII digits, else None. A number
    longer than any id comes back as ``MAX_ID + 1``: out of range, without reading it all."""
    text = (raw or "").strip()
    if not text or not (text.isascii() and text.isdigit()):
        return None
    if len(text.lstrip("0")) > _MAX_DIGITS:
        return MAX_ID + 1
    return int(text)


class IdConverter(IntegerConverter):
    """``<id:name>`` in a route: ASCII digits up to :data:`MAX_ID`; anything else is a 404."""

    regex = r"[0-9]+"

    def to_python(self, value: str) -> Any:
        number = parse_number(value)
        if number is None or number > MAX_ID:
            raise ValidationError()
        return number
