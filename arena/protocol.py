"""The bot protocol's version, checked on both sides of ``StartMatch``.

The referee sends the version it speaks in ``MatchStart``; a bot answers with the version it
speaks in ``Ready``. Both must be the same known version: 0 (``PROTOCOL_VERSION_UNSPECIFIED``)
means a peer that never set the field, and is refused with an error that says so rather than
guessed at.
"""

from __future__ import annotations

from arena._proto import bot_pb2

PROTOCOL_VERSION = bot_pb2.PROTOCOL_VERSION_1


def version_mismatch(theirs: int) -> str:
    """The one-line error for a peer that speaks another protocol version (or names none)."""
    ours = bot_pb2.ProtocolVersion.Name(PROTOCOL_VERSION)
    if theirs == bot_pb2.PROTOCOL_VERSION_UNSPECIFIED:
        return f"no protocol_version given (0 = PROTOCOL_VERSION_UNSPECIFIED); this side speaks {ours}"
    return f"protocol version {theirs} is not spoken here; this side speaks {ours}"
