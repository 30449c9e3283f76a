"""``seasons`` and ``season_entries``: a competition per game over a period (issue 39 item 6).

A season gathers a period of ladder play into one ranking, as Halite, Kaggle's simulation
competitions and CodinGame contests end: entry is open until a **submission deadline**; at the
deadline each entered bot's version is **frozen** (the newest version that plays, uploaded
before the deadline: later uploads of an entered bot are refused until the season is over,
:mod:`arena.intake.freeze`); then a **final evaluation** among the top K by rating (a
tournament, ``final_tournament_id``) settles the **final standings**, stored here once and never
recomputed (``final_standings``, and each entry's ``final_place``). The logic is
:mod:`arena.competition.seasons`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from arena.db.models import Base, utcnow


class Season(Base):
    __tablename__ = "seasons"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(50), index=True)
    variant: Mapped[str] = mapped_column(String(50))
    #: Seats at a table of the final evaluation.
    players: Mapped[int] = mapped_column(Integer)
    #: ``open`` (entries taken) → ``frozen`` (deadline passed, versions fixed) → ``final``
    #: (the final evaluation is being played) → ``done`` (final standings published).
    status: Mapped[str] = mapped_column(String(20), default="open")
    opens_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: After this moment no entry is taken and entered bots' new versions are refused.
    deadline: Mapped[datetime] = mapped_column(DateTime)
    #: How many entries (the best by rating at the freeze) play the final evaluation.
    top_k: Mapped[int] = mapped_column(Integer)
    #: ``round_robin`` or ``swiss`` (arena.competition.tournaments.FORMATS).
    final_format: Mapped[str] = mapped_column(String(20), default="round_robin")
    #: Rounds of the final: a round-robin's full cycles (each a balanced schedule, seats
    #: rotated), or a Swiss's rounds.
    final_rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer, default=0)
    description: Mapped[str] = mapped_column(Text, default="")
    frozen_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    final_tournament_id: Mapped[int | None] = mapped_column(ForeignKey("tournaments.id"), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: The published standings, written once when the season closes: a list of rows (place,
    #: bot, version, owner, finalist, final-evaluation figures, rating at the freeze).
    final_standings: Mapped[list | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    entries: Mapped[list[SeasonEntry]] = relationship(
        back_populates="season", order_by="SeasonEntry.entered_at")


class SeasonEntry(Base):
    __tablename__ = "season_entries"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id"), primary_key=True)
    #: The bot (not a version): its versions change until the deadline.
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True, index=True)
    entered_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: Set at the freeze: the version that represents the bot from then on (None: it had no
    #: playing version before the deadline, and takes no part).
    frozen_version_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"), nullable=True)
    #: mu − 3·sigma of the frozen version at the freeze: what picks the top K.
    frozen_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: The place in the published final standings (None until the season is done).
    final_place: Mapped[int | None] = mapped_column(Integer, nullable=True)

    season: Mapped[Season] = relationship(back_populates="entries")
