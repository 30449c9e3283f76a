"""Qualification matches, found by the id ``arena submit`` prints.

A qualification match (:mod:`arena.intake.qualification`) is not a row of ``matches``: its candidate is
no ``BotVersion`` yet (a refused one never becomes one), and a ``matches`` row would be counted,
scheduled, recovered and rated like every other. Its record lives in its submission
(``bot_submissions.match_id``/``record``). So the places that look a match up by id — the API's
GetMatch and WatchMatch (``arena watch``), ListMatches for one bot (``arena matches --bot``) and
the website's match page — ask this module when ``matches`` has no such id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.db.accounts import Submission
from arena.db.models import Bot

#: The ``kind`` a qualification match shows (beside ``ladder``, ``tournament``, ``adhoc``).
KIND = "qualification"


@dataclass(frozen=True)
class QualificationSeat:
    """One seat: the candidate (seat 0, ``bot_id`` set) or a random bot (``bot_id`` None:
    the server's own opponent, no bot of the database)."""

    seat: int
    name: str
    bot_id: int | None
    owner: str
    version: int | None
    score: float | None
    rank: int | None
    forfeit: str | None
    forfeit_message: str


@dataclass(frozen=True)
class QualificationMatch:
    id: str
    game: str
    variant: str
    players: int
    #: ``done`` when the match was played to its end (passed or not: a refused bot's match is
    #: over too), ``failed`` when the server could not play it (no record).
    status: str
    #: The refusal's text when the server could not play it (only its owner and organisers
    #: read it: arena.intake.refusals), and the refusal kind, the word everyone sees.
    error: str | None
    created_at: datetime | None
    finished_at: datetime | None
    bot_id: int
    bot_owner: str
    seats: list[QualificationSeat]
    record: dict[str, Any] | None
    refusal_kind: str | None = None


def ids_with_prefix(session: Session, prefix: str, limit: int = 6) -> list[str]:
    """The qualification match ids equal to ``prefix``, else up to ``limit`` starting with it
    (an index range read on ``ix_bot_submissions_match_id``, as :mod:`arena.db.match_ids`)."""
    if session.scalar(select(Submission.match_id).where(Submission.match_id == prefix).limit(1)):
        return [prefix]
    after = session.scalars(
        select(Submission.match_id)
        .where(Submission.match_id >= prefix)
        .order_by(Submission.match_id)
        .limit(limit)
    )
    return [mid for mid in after if mid.startswith(prefix)]


def find(session: Session, match_id: str) -> QualificationMatch | None:
    """The qualification match with exactly this id, or None."""
    row = session.execute(
        select(Submission, Bot)
        .join(Bot, Bot.id == Submission.bot_id)
        .where(Submission.match_id == match_id)
        .limit(1)
    ).first()
    return None if row is None else _from(row[0], row[1])


def of_bot(session: Session, bot_id: int) -> list[QualificationMatch]:
    """Every qualification match of the bot's submissions, newest first (a bot has few)."""
    rows = session.execute(
        select(Submission, Bot)
        .join(Bot, Bot.id == Submission.bot_id)
        .where(Submission.bot_id == bot_id, Submission.match_id.is_not(None))
        .order_by(Submission.created_at.desc(), Submission.id.desc())
    ).all()
    return [_from(sub, bot) for sub, bot in rows]


def _from(sub: Submission, bot: Bot) -> QualificationMatch:
    record = sub.record if isinstance(sub.record, dict) else None
    data = record or {}
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    scores, ranks = list(result.get("scores") or []), list(result.get("ranks") or [])
    forfeits = {f.get("seat"): f for f in data.get("forfeits") or [] if isinstance(f, dict)}
    names = [s.get("name", "") if isinstance(s, dict) else str(s) for s in data.get("seats") or []]
    if not names:  # no record (the server failed to play it): the candidate alone is known
        names = [f"{bot.name} v{sub.number}"]
    seats = []
    for i, name in enumerate(names):
        forfeit = forfeits.get(i) or {}
        seats.append(
            QualificationSeat(
                seat=i,
                name=bot.name if i == 0 else name,
                bot_id=bot.id if i == 0 else None,
                owner=bot.owner if i == 0 else "",
                version=sub.number if i == 0 else None,
                score=float(scores[i]) if i < len(scores) and scores[i] is not None else None,
                rank=int(ranks[i]) if i < len(ranks) and ranks[i] is not None else None,
                forfeit=str(forfeit["reason"]) if forfeit.get("reason") else None,
                forfeit_message=str(forfeit.get("message") or ""),
            )
        )
    return QualificationMatch(
        id=str(sub.match_id),
        game=str(data.get("game") or bot.game),
        variant=str(data.get("variant") or ""),
        players=int(data.get("players") or len(seats)),
        status="done" if record is not None else "failed",
        error=None if record is not None else (sub.refusal_message or None),
        created_at=sub.created_at,
        finished_at=sub.finished_at,
        bot_id=bot.id,
        bot_owner=bot.owner,
        seats=seats,
        record=record,
        refusal_kind=sub.refusal_kind,
    )
