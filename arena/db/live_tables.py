"""The public live feed of running matches, in the database: what lets a website in another
process show a match live when there is no Redis (see :mod:`arena.workers.live_table`).

* ``live_events`` (:class:`LiveEvent`) — one row per public live event of a running match, in
  ``seq`` order, as watchers of ``WatchMatch`` receive it (already delayed, public lines only).
* ``live_boards`` (:class:`LiveBoard`) — the newest public board of a running match.

Both hold a match only while it runs: its rows go when its end marker is written.
"""

from __future__ import annotations

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from arena.db.models import Base


class LiveEvent(Base):
    __tablename__ = "live_events"
    __table_args__ = (Index("ix_live_events_written", "written_at"),)

    # No foreign key: the writer must never wait on (or fail over) the matches table's locks.
    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    body: Mapped[str] = mapped_column(Text)  # the event's JSON
    written_at: Mapped[float] = mapped_column(Float)  # unix time, to prune what a crash left


class LiveBoard(Base):
    __tablename__ = "live_boards"

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    body: Mapped[str] = mapped_column(Text)  # GameState.public_view() as JSON
    written_at: Mapped[float] = mapped_column(Float)
