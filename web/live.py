"""What a spectator may see of a match that is being played: built only from the public live
stream (:mod:`arena.workers.live`), never from the database's seed or the worker's state.

The match runner publishes public lines only, no option id for a choice that names hidden
information (``GameState.option_audience``), and the engine's ``public_view()`` as the board.
So this module cannot leak what the stream does not carry; it only shapes it for the live page
and ``/api/matches/<id>/live``. Once the match is over the full record (seed included) is
public and the replay takes over.

Where the stream is read: with a broker (``ARENA_BROKER_URL=redis://…``) from Redis, where the
workers publish it; without one from the database's ``live_events`` / ``live_boards`` tables,
which the process playing the match (``arena serve`` on the embedded default) writes with the
very batches its watchers get (:mod:`arena.workers.live_table`). So the site never needs Redis,
and works whether it runs in the process playing the matches or in another one.
"""

from __future__ import annotations

from typing import Any

from arena.workers.live import RedisBus, get_bus
from arena.workers.live_table import read_snapshot
from web.db import db

#: The live log shows this many of the latest decisions.
LOG_LENGTH = 60


def _snapshot(match_id: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The match's public events so far and its newest public board, from wherever this
    deployment's live stream is kept (see the module docstring)."""
    bus = get_bus()
    if isinstance(bus, RedisBus):
        return bus.snapshot(match_id)
    return read_snapshot(db().connection(), match_id)


def live_state(match_id: str, status: str) -> dict[str, Any]:
    """The live picture of a match: whose move, the latest public lines, the public board."""
    events: list[dict[str, Any]] = []
    view = None
    if status in ("running", "pending"):
        try:
            events, view = _snapshot(match_id)
        except Exception:  # noqa: BLE001 - broker or table unreachable: nothing live yet, says the page
            events, view = [], None
    opening, decisions, forfeits = _parse(events)
    return {
        "match_id": match_id,
        "status": status,
        "live": bool(events),
        "decisions": len(decisions),
        "opening_events": opening,
        "log": decisions[-LOG_LENGTH:],
        "forfeits": forfeits,
        "view": view,
    }


def decision_log(match_id: str) -> list[dict[str, Any]]:
    """Every public decision of a running match so far (what the seat's move log in words is
    made of, web/play.py); empty when the stream cannot be read or the match is over."""
    try:
        events, _view = _snapshot(match_id)
    except Exception:  # noqa: BLE001 - broker or table unreachable: no log yet, as the live page
        return []
    return _parse(events)[1]


def _parse(
    events: list[dict[str, Any]],
) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """The stream's opening lines, decisions and forfeits, in order."""
    opening: list[str] = []
    decisions: list[dict[str, Any]] = []
    forfeits: list[dict[str, Any]] = []
    for event in events:
        kind = event.get("type")
        if kind == "start":
            opening = [str(line) for line in event.get("opening_events") or []]
        elif kind == "decision":
            decisions.append({
                "n": event.get("n"), "seat": event.get("seat"), "option": event.get("option"),
                "label": event.get("label") or "",
                "private_choice": bool(event.get("private_choice")), "forced": bool(event.get("forced")),
                "comment": event.get("comment") or "", "events": [str(e) for e in event.get("events") or []],
            })
        elif kind == "forfeit":
            forfeits.append({k: event.get(k) for k in ("seat", "reason", "message", "decision")})
    return opening, decisions, forfeits
