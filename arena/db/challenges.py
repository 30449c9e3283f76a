"""``challenges``: one account's bot challenging another account's bot to a match now.

A row per challenge, written by :mod:`arena.play.challenges` in the same transaction as its match
(``matches.kind = 'challenge'``), so a challenge never exists without its match nor a
challenge match without its row. The match holds everything about how it went (status, seats,
ranks, whether it was rated); the row keeps who asked for it and when, which is what the
per-account caps count (ARENA_CHALLENGES_PER_HOUR and the pending caps) and what the bot pages
list. Rows are never pruned: they are the bots' public challenge history.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from arena.db.models import Base, utcnow


class Challenge(Base):
    __tablename__ = "challenges"
    __table_args__ = (
        # the per-account caps: this account's challenges of the last hour, newest first
        Index("ix_challenges_user_created", "user_id", "created_at"),
        # a bot page's challenges, either side, newest first
        Index("ix_challenges_challenger_created", "challenger_bot_id", "created_at"),
        Index("ix_challenges_opponent_created", "opponent_bot_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: The account that challenged (``users.id``): what every cap counts.
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    challenger_bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    opponent_bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    match_id: Mapped[str] = mapped_column(String(32), ForeignKey("matches.id"), unique=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
