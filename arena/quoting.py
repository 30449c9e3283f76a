"""Quoting a caller's input in an error message without echoing all of it.

A refusal that repeats what it refused helps its author ("bot name 'my bot' is not valid"), but
the input is a stranger's: a 10,000-character game name quoted whole makes a gRPC status larger
than the 8 KiB a client accepts in its trailers (the client then sees a transport error, not the
refusal) and a web error page as large as the attacker likes. So every message that quotes input
quotes :func:`shorten` of it, and the gRPC and web error handlers cap the whole message at
:data:`MAX_MESSAGE` as a last line for messages built in code that forgot to.
"""

from __future__ import annotations

#: Characters of a caller's value an error message quotes; enough to recognise the value.
MAX_QUOTED = 80
#: Characters of a whole error message (gRPC status message or web error description).
MAX_MESSAGE = 1000

ELLIPSIS = "…"


def shorten(value: object, limit: int = MAX_QUOTED) -> str:
    """``str(value)`` if it has at most ``limit`` characters, else its start and "…" in
    ``limit`` characters, so the result never exceeds ``limit``."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS
