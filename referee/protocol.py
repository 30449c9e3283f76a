"""The bot protocol's version, checked on both sides of ``StartMatch``.

The referee sends the version it speaks in ``MatchStart``; a bot answers with the version it
speaks in ``Ready``. Both must be the same known version: 0 (``PROTOCOL_VERSION_UNSPECIFIED``)
means a peer that never set the field, and is refused with an error that says so rather than
guessed at.
"""

from __future__ import annotations

from referee._proto import bot_pb2

PROTOCOL_VERSION = bot_pb2.PROTOCOL_VERSION_1


def version_mismatch(theirs: int) -> str:
    """The one-line error for a peer that speaks another protocol version (or names none)."""
    ours = bot_pb2.ProtocolVersion.Name(PROTOCOL_VERSION)
    if theirs == bot_pb2.PROTOCOL_VERSION_UNSPECIFIED:
        return f"no protocol_version given (0 = PROTOCOL_VERSION_UNSPECIFIED); this side speaks {ours}"
    return f"protocol version {theirs} is not spoken here; this side speaks {ours}"


#: The status a bot's own failure (an exception in its code) is reported with, on every route:
#: gRPC's own status for a handler that raised. A dial-in bot's error crosses the relay as text
#: only (``ConnectBotAnswer.error``), so the referee gives it this status too: one fault, one
#: status, whether the bot was hosted, remote or dialled in.
BOT_ERROR_STATUS = "UNKNOWN"
#: What grpcio's own server puts before an exception's text; it says nothing the status does not.
GRPC_APPLICATION_PREFIX = "Exception calling application: "
#: Characters of a bot's error text kept in a fault message.
BOT_ERROR_CHARS = 300


def bot_error_text(exc: BaseException) -> str:
    """How a bot SDK reports an exception in the author's code, on every route: its type and
    text (``KeyError: 'no-such-key'``), which is what the author needs to find the bug."""
    return f"{type(exc).__name__}: {exc}"[:500]


def bot_error_message(status: str, details: str) -> str:
    """The fault message of a bot that answered with an error: ``<STATUS>: <its text>``, the
    same for the same error whichever route carried it (grpcio's boilerplate prefix dropped)."""
    return f"{status}: {details.removeprefix(GRPC_APPLICATION_PREFIX)[:BOT_ERROR_CHARS]}"
