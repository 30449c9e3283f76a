"""Tables of the Arena gRPC API: users with hashed API tokens, and bot submissions.

Kept apart from :mod:`arena.db.models` (the platform's core tables) because only the API
server writes them. Why a ``bot_submissions`` table beside ``bot_versions``: a submission must
qualify before it may play, and the scheduler picks a bot's newest ``BotVersion``; so a
``BotVersion`` row is created only once a submission has qualified, and a refused or still
qualifying upload never reaches a tournament. The submission keeps why it was refused (kind,
message, the bot's crash-log tail) for ``arena bots`` and ``GetVersionStatus``.

``bots.owner`` holds the owning user's name.

``registrations`` (:class:`Registration`) remembers which client made each new account during
the last hour, so ``Register`` can be capped per client address (arena.server.registrations)
across server restarts and across several API servers; ``bot_submissions.client`` does the same
for pending qualifications (arena.server.dialin).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from arena.db.models import Base, utcnow

ROLE_USER = "user"
ROLE_ORGANISER = "organiser"

QUALIFYING = "qualifying"
QUALIFIED = "qualified"
REFUSED = "refused"
#: Characters kept of a client's cap key (``addr:…``, far shorter; see arena.server.streams).
CLIENT_CHARS = 100


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    role: Mapped[str] = mapped_column(String(20), default=ROLE_USER)
    #: SHA-256 of the API token (see arena.sdk.auth); the token itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: The author keeps the matches of their bots out of the training datasets
    #: (``arena export dataset`` leaves out every match a bot of this account sat in; 0020).
    dataset_opt_out: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Submission(Base):
    __tablename__ = "bot_submissions"
    __table_args__ = (UniqueConstraint("bot_id", "number", name="uq_bot_submissions_bot_number"),
                      Index("ix_bot_submissions_client_status", "client", "status"),
                      # a qualification match found by its id or a prefix of it (0015)
                      Index("ix_bot_submissions_match_id", "match_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    #: The version number this submission becomes (the BotVersion gets the same number).
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10))  # hosted | remote
    source: Mapped[str] = mapped_column(String(500))  # folder with bot.py | host:port
    digest: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[str] = mapped_column(String(20), default=QUALIFYING)
    refusal_kind: Mapped[str | None] = mapped_column(String(30), nullable=True)
    refusal_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    log_tail: Mapped[str | None] = mapped_column(Text, nullable=True)
    match_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The qualification match record (not in ``matches``: the candidate is no BotVersion yet).
    record: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    bot_version_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"), nullable=True)
    #: The submitter's SPRT settings (arena.evaluation.sprt.SprtSettings fields); None: the server's.
    sprt_settings: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    #: The client whose call made it (its cap key, ``addr:…``; see arena.server.streams
    #: .ClientAddresses), so pending qualifications are capped per client across accounts.
    #: None: made before it was recorded, or not by an API call.
    client: Mapped[str | None] = mapped_column(String(CLIENT_CHARS), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class ApiRequest(Base):
    """A client request id already seen, so a retried Register/SubmitBot/RegisterRemoteBot does
    not create a second user or version. ``call`` + ``scope`` (the user name for Register, the
    caller's user id for submissions) + the id's SHA-256 are unique; ``submission_id`` is NULL
    while the first call is still being handled."""

    __tablename__ = "api_requests"
    __table_args__ = (UniqueConstraint("call", "scope", "request_hash", name="uq_api_requests_call_scope_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    call: Mapped[str] = mapped_column(String(30))
    scope: Mapped[str] = mapped_column(String(100))
    request_hash: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("bot_submissions.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Registration(Base):
    """One account made through ``Register``: by which client (its cap key, ``addr:…``, see
    arena.server.streams.ClientAddresses) and when. Rows older than the cap's hour are pruned by
    the next registration; nothing else reads them."""

    __tablename__ = "registrations"
    __table_args__ = (Index("ix_registrations_client_at", "client", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client: Mapped[str] = mapped_column(String(CLIENT_CHARS))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
