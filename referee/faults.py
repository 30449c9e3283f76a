"""The one vocabulary of fault reasons: why a seat forfeits, and why a bot version is refused.

The same names are used in match records, the bot protocol (``tabletop.bot.v1.FaultReason``),
the Arena API (``Refusal.kind`` and ``Refusal.fault``), the command line and the docs. Records
and refusals written before the names were unified are read through :func:`canonical`, so an
old ``illegal_move`` shows as ``illegal_option`` everywhere.
"""

from __future__ import annotations

#: Forfeit reason codes and what they mean (shown to humans next to the specific message).
#: Their ``FaultReason`` enum numbers, the same in both .proto files, are :data:`NUMBERS`.
REASONS: dict[str, str] = {
    "start_failed": "the bot could not be started or exited before it was ready",
    "start_timeout": "the bot was not ready before the start-up deadline",
    "crash": "the bot's process died during the match",
    "timeout": "the bot overran its decision time and its bank",
    "illegal_option": "the bot answered an option id that is not legal",
    "garbage_reply": "the bot's reply could not be decoded",
    "bot_error": "the bot answered with an error instead of a move",
    "output_flood": "the bot wrote more output than allowed",
    "unreachable": "the remote bot could not be reached",
    "disconnected": "the dial-in bot's connection dropped during the match",
    "void_limit": "the match was voided again at this bot's decisions",
}

#: The one refusal kind that is not a seat's fault: qualification could not be played.
SERVER_ERROR = "server_error"
#: A seat at whose decisions earlier tries of the match were already void (the host seemed to
#: keep its bot waiting for a CPU) forfeits instead of voiding it again (referee.match).
VOID_LIMIT = "void_limit"

#: The ``FaultReason`` enum number of every name, the same in ``tabletop.bot.v1`` and
#: ``tabletop.arena.v1``. Numbers are never reused: ``disconnected`` came after ``server_error``
#: had taken 10 in the API's enum, so bot.proto reserves 10 (a seat never forfeits for it).
NUMBERS: dict[str, int] = {
    "start_failed": 1, "start_timeout": 2, "crash": 3, "timeout": 4, "illegal_option": 5,
    "garbage_reply": 6, "bot_error": 7, "output_flood": 8, "unreachable": 9,
    SERVER_ERROR: 10,
    "disconnected": 11,
    VOID_LIMIT: 12,
}

#: Every kind a refused version can carry (``Refusal.kind``): a fault reason or SERVER_ERROR
#: (a dial-in bot qualifies over its stream, so a dropped one is refused as ``disconnected``),
#: in the order of their enum numbers.
REFUSAL_KINDS: tuple[str, ...] = tuple(sorted(NUMBERS, key=NUMBERS.__getitem__))

#: Names used before the vocabulary was unified, as they are read from old records and rows.
LEGACY: dict[str, str] = {
    "illegal_move": "illegal_option",
    "error": SERVER_ERROR,
}


def canonical(name: str | None) -> str:
    """The current name of a fault reason or refusal kind (old names migrated, others kept)."""
    if not name:
        return ""
    return LEGACY.get(name, name)


def proto_number(name: str | None) -> int:
    """The ``FaultReason`` enum number of a reason (0 = none, or not a seat fault)."""
    reason = canonical(name)
    return NUMBERS[reason] if reason in REASONS else 0
