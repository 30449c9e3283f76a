"""Submissions closed by a season's deadline: an entered bot's versions are frozen.

Once a season's submission deadline has passed (:class:`arena.db.seasons.Season`), a bot entered
in it may not get a new version until the season's final standings are published: the final
evaluation must judge what was submitted in time, and a later upload would otherwise replace it
on the ladder under the same name. The season itself never reads a late version (it fixes each
entry's version at the freeze), so this refusal is what makes the rule visible to the author at
upload time, with the season and the deadline named, rather than a silently ignored upload.
Checked by :func:`arena.intake.bots.register_version` (every path that makes a version) and,
before an archive is stored, by the API's submissions (arena.server.submissions).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.db.models import utcnow
from arena.db.seasons import Season, SeasonEntry
from referee.engine import ConfigError


class SubmissionsClosed(ConfigError):
    """A new version of a bot whose season has passed its submission deadline."""


def closing_season(session: Session, bot_id: int, now: datetime | None = None) -> Season | None:
    """The season (the earliest deadline first) whose deadline has passed and whose standings
    are not yet published, among those ``bot_id`` is entered in; None when it may upload."""
    now = now or utcnow()
    return session.scalar(
        select(Season).join(SeasonEntry, SeasonEntry.season_id == Season.id)
        .where(SeasonEntry.bot_id == bot_id, Season.deadline <= now, Season.status != "done")
        .order_by(Season.deadline, Season.id).limit(1)
    )


def refusal(season: Season, bot_name: str) -> str:
    """The one sentence an author reads, on the API, the CLI or a qualification result."""
    return (f"{bot_name} is entered in season {season.id} ({season.name}), whose submissions closed at "
            f"{season.deadline:%Y-%m-%d %H:%M} UTC: its version is frozen until the season's final "
            "standings are published; upload under another name to keep developing")


def check_upload(session: Session, bot_id: int, bot_name: str) -> None:
    """Raise :class:`SubmissionsClosed` when ``bot_id`` may not get a new version now."""
    season = closing_season(session, bot_id)
    if season is not None:
        raise SubmissionsClosed(refusal(season, bot_name))
