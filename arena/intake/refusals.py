"""Who may read why a bot was refused.

A refused upload's failure text — the referee's message of its qualification fault (an
exception's text, the bot's own illegal answer quoted back, a server error) — is its author's
business: it can carry the bot's output, paths, or anything the bot chose to print, and a
public page showing it would be the bot's (or an attacker's) billboard. So everyone sees the
*reason word* (``crash``, ``timeout``, ``illegal_move``, ``server_error`` …: the refusal kind,
one vocabulary with the faults, :mod:`referee.faults`), and only the bot's owner and the
organisers see the text and the stderr tail: on the website's qualification match page
(:func:`web.queries.matches.qualification_page`), and in the API's ``BotVersion.refusal``,
GetMatch, WatchMatch and ListMatches of a qualification match (:mod:`arena.server`).

A qualification match's record is the same for everyone (caches and replays are shared), so
its forfeits never carry the message there: :func:`public_record` strips it always, and the
author reads it beside the verdict.
"""

from __future__ import annotations

from typing import Any

from arena.db.accounts import ROLE_ORGANISER
from referee.record import without_logs


def may_read(viewer_name: str | None, viewer_role: str | None, owner: str) -> bool:
    """Whether a viewer (None: nobody signed in / no token) reads a refusal's text."""
    return viewer_name is not None and (viewer_role == ROLE_ORGANISER or viewer_name == owner)


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A qualification match's record with no bot output: no stderr tail and no fault message
    on any forfeit (the reason stays)."""
    out = without_logs(record)
    forfeits = out.get("forfeits")
    if isinstance(forfeits, list):
        out = dict(out)
        out["forfeits"] = [{**f, "message": ""} if isinstance(f, dict) and "message" in f else f for f in forfeits]
    return out
