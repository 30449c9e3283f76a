"""The seat a person holds in a match played in the browser (:mod:`arena.play.human`).

* ``human_seats`` (:class:`HumanSeat`) — one row per human seat: the hash of the seat's secret
  (only the browser holding the secret sees the seat's observation), the client that started
  it (to cap games per client), and the decision waiting for the person — its number, the
  seat's observation, the legal options and the deadline, written by the process playing the
  match — with the person's answer, written by whichever web process took the click.

The row is the hand-over between the two, so the match may run in another process than the
one serving the page (several web processes; a website restarted mid-game finds the row).
The pending observation is the seat's own and never leaves this table except to the secret's
holder; the row's observation is cleared when the match ends (the public record takes over).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from arena.db.models import Base, utcnow


class HumanSeat(Base):
    __tablename__ = "human_seats"
    __table_args__ = (
        Index("ix_human_seats_client", "client", "status"),
        Index("ix_human_seats_status", "status"),
    )

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: sha256 hex of the seat's secret (the secret itself is only in the person's cookie)
    secret_hash: Mapped[str] = mapped_column(String(64))
    #: who started it (a hash of the client address): the per-client cap counts these
    client: Mapped[str] = mapped_column(String(64))
    #: playing | done | failed — the cap counts ``playing`` rows
    status: Mapped[str] = mapped_column(String(20), default="playing")
    #: the decision waiting for the person (``ActRequest.decision``), None while the others move
    decision: Mapped[int | None] = mapped_column(Integer, nullable=True)
    observation: Mapped[str | None] = mapped_column(Text, nullable=True)  # the seat's own, JSON
    options: Mapped[str | None] = mapped_column(Text, nullable=True)  # [[id, label], …] JSON
    prompt: Mapped[str] = mapped_column(Text, default="")
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True)  # unix time
    #: the person's answer to ``answer_decision`` (the match process takes it and clears it)
    answer: Mapped[str | None] = mapped_column(String(200), nullable=True)
    answer_decision: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the person's own choices in words, ``[[decision, label], …]`` JSON: the move log shows
    #: the seat its own hidden choices (the public stream hides their labels), only to the
    #: secret's holder, as the observation
    own_log: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: the process playing the match renews this while it runs (a page can tell a dead game)
    alive_until: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
