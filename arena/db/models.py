"""The platform's tables (SQLAlchemy 2 declarative models).

Table names and the columns other parts read (web/, arena/server) are a contract: keep them stable.

* ``bots`` (:class:`Bot`) — a named bot of one owner for one game. ``active`` bots take part in
  the ladder.
* ``bot_versions`` (:class:`BotVersion`) — every upload is a new version (``number`` 1, 2, …).
  ``source`` is a folder holding ``bot.py`` (``kind="hosted"``) or ``host:port``
  (``kind="remote"``). ``initial_mu``/``initial_sigma`` are the rating the version started with
  (a new version inherits its predecessor's mu with sigma reset), stored so a rebuild from history
  starts from exactly the same point.
* ``tournaments`` (:class:`Tournament`) and ``tournament_entries`` (:class:`TournamentEntry`) — a
  round-robin or a Swiss (``format``): its bots, settings and progress
  (``matches_done``/``matches_total``; see :meth:`Tournament.progress` for the ETA the CLI and
  the web show). ``tournament_rounds`` (:class:`TournamentRound`) — a Swiss's paired rounds and
  their byes.
* ``matches`` (:class:`Match`) — one game: game, variant, seed, seats, status
  (``pending`` → ``running`` → ``done`` | ``failed``), timings, result, forfeits and the full match
  record (``record``, the runner's ``MatchRecord.to_json()``) for replays — or, stored compactly,
  ``record_compact`` (read both through :func:`arena.records.stored.record_data`). ``rating_seq`` is the
  position in which the match was rated within its game: the order a rebuild replays.
* ``match_seats`` (:class:`MatchSeat`) — who sat where, the rank/score/forfeit, and the rating
  before and after the match.
* ``ratings`` (:class:`Rating`) — the current TrueSkill rating per bot version and game, with
  games played, opponents met (``opponent_counts``), seats taken and player counts (for the
  ladder's quotas and for showing how well founded a rating is).
* ``rating_history`` (:class:`RatingHistory`) — one row per bot version per rated match.
* ``rating_locks`` (:class:`RatingLock`) — one row per game; recording a result locks it, which
  serialises every rating update of that game (see :mod:`arena.records.recording`).
* ``ladders`` (:class:`Ladder`) — continuous matchmaking settings per game.
* ``challenges`` (:class:`arena.db.challenges.Challenge`) — one account's bot challenging
  another's to a match now (``matches.kind = 'challenge'``; ``matches.rated`` false unless the
  challenger asked for a rated one).
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    """Declarative base of every arena table (``Base.metadata`` is what Alembic compares)."""


class Bot(Base):
    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("owner", "name", "game", name="uq_bots_owner_name_game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(100), default="local")
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(50), index=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    versions: Mapped[list[BotVersion]] = relationship(
        back_populates="bot", order_by="BotVersion.number", foreign_keys="BotVersion.bot_id"
    )

    @property
    def latest_version(self) -> BotVersion | None:
        return self.versions[-1] if self.versions else None

    @property
    def playing_version(self) -> BotVersion | None:
        """The newest version that plays: not held back by an SPRT (see :class:`SprtTest`)."""
        playing = [v for v in self.versions if not v.held]
        return playing[-1] if playing else None


class BotVersion(Base):
    __tablename__ = "bot_versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "number", name="uq_bot_versions_bot_number"),
        # the leaderboard token counts held versions on every recheck: an empty index, not a
        # scan of every version (0008_web_cover)
        Index("ix_bot_versions_held", "id", postgresql_where=text("held IS true"),
              sqlite_where=text("held IS 1")),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10), default="hosted")  # hosted | remote
    source: Mapped[str] = mapped_column(String(500))
    digest: Mapped[str] = mapped_column(String(64), default="")
    initial_mu: Mapped[float] = mapped_column(Float)
    initial_sigma: Mapped[float] = mapped_column(Float)
    predecessor_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"), nullable=True)
    #: Qualified but not on the ladder: its SPRT against the predecessor is running, or did not
    #: accept (see :class:`SprtTest`). The scheduler plays the newest version not held.
    held: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    bot: Mapped[Bot] = relationship(back_populates="versions", foreign_keys=[bot_id])
    rating: Mapped[Rating | None] = relationship(back_populates="version", uselist=False)

    @property
    def label(self) -> str:
        """``name v2`` — how leaderboards and match pages name a version."""
        return f"{self.bot.name} v{self.number}"


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    game: Mapped[str] = mapped_column(String(50), index=True)
    variant: Mapped[str] = mapped_column(String(50))
    players: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer, default=1)
    #: ``round_robin`` (every match created up front) or ``swiss`` (a round at a time, arena.competition.swiss)
    format: Mapped[str] = mapped_column(String(20), default="round_robin", server_default="round_robin")
    seed: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(20), default="scheduled")  # scheduled|running|done|failed
    matches_total: Mapped[int] = mapped_column(Integer, default=0)
    matches_done: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    #: Bots' comments reach watchers while its matches run (0011); off, they come with the record.
    live_comments: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Entries one author (a bot's owner) may have; house and command-line bots are exempt.
    #: Two entries of one author never play a rated game together (arena.intake.authors, 0018).
    entries_per_author: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: Bots may enter (0023): before the start (status ``open``) a registration, once a Swiss
    #: runs a late entry into its next round (arena.competition.lifecycle).
    entries_open: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The organiser (user name) who created it; only they (or the operator's CLI) manage it.
    organiser: Mapped[str | None] = mapped_column(String(100), nullable=True)
    #: Seconds a match may take from being sent to the workers; then it is retried once, then
    #: scored as a double forfeit, unrated (arena.competition.lifecycle.enforce_deadlines).
    round_deadline_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The time control and sandbox of its matches, kept for matches paired later (an event
    #: opened for entries has none yet).
    decision_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bank_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sandbox: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())

    entries: Mapped[list[TournamentEntry]] = relationship(
        back_populates="tournament", order_by="TournamentEntry.position"
    )
    matches: Mapped[list[Match]] = relationship(back_populates="tournament")

    def progress(self, now: datetime | None = None) -> dict[str, Any]:
        """Done/total, fraction and an ETA in seconds (None until one match is done).

        The ETA is the mean time per finished match so far times the matches left: cheap, and
        honest about parallel workers because it is measured on the wall clock.
        """
        now = now or utcnow()
        total, done = self.matches_total, self.matches_done
        eta = None
        if self.started_at and done and total > done:
            elapsed = (now - self.started_at).total_seconds()
            eta = elapsed / done * (total - done)
        elif total and done >= total:
            eta = 0.0
        return {
            "done": done,
            "total": total,
            "fraction": (done / total) if total else 1.0,
            "eta_seconds": eta,
            "status": self.status,
        }


class TournamentEntry(Base):
    __tablename__ = "tournament_entries"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    #: The round (0-based) from which it is paired: 0, or later for a late entry (0023).
    joined_round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Withdrawn: never paired again; its games played stand (arena.competition.lifecycle).
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    withdrawn_by: Mapped[str | None] = mapped_column(String(100), nullable=True)
    withdrawn_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)

    tournament: Mapped[Tournament] = relationship(back_populates="entries")
    version: Mapped[BotVersion] = relationship()


class TournamentAudit(Base):
    """One line of an event's audit log: an organiser's action or an automatic decision (a
    withdrawal, a deadline retry or forfeit), with who, when and why (0023)."""

    __tablename__ = "tournament_audit"
    __table_args__ = (Index("ix_tournament_audit_tournament", "tournament_id", "id"),
                      Index("ix_tournament_audit_match", "match_id", "action"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: A user name, ``operator`` (the server machine's CLI) or ``system`` (automatic).
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(30))
    match_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="", server_default="")
    detail: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class TournamentRound(Base):
    """One paired round of a Swiss tournament. Its primary key is the guard that pairs each round
    exactly once: two workers finishing a round's last matches at once both try to insert the
    next round's row, and only one can (arena.competition.tournaments.pair_next_round)."""

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: Bot version ids sitting this round out (a bye scores as a win, changes no rating).
    byes: Mapped[list] = mapped_column(JSON, default=list)
    #: Pairs at this round's tables that had met before (0 whenever that could be avoided).
    repeats: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Match(Base):
    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("game", "rating_seq", name="uq_matches_game_rating_seq"),
        Index("ix_matches_status", "status"),
        # web/ match history: keyset pages on (created_at, id), all games or one (0003_web).
        Index("ix_matches_created", "created_at", "id"),
        Index("ix_matches_game_created", "game", "created_at", "id"),
        # a bot's history: its match ids sorted by created_at, and its results by player
        # count, index-only (0008_web_cover).
        Index("ix_matches_id_created_players", "id", "created_at", "players"),
        # a tournament's schedule in page order and its finished matches (standings),
        # index-only (0008_web_cover).
        Index("ix_matches_tournament_schedule", "tournament_id", "round", "table", "created_at", "id",
              "status"),
        # history filtered by status, newest first (0007_web).
        Index("ix_matches_status_created", "status", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # uuid hex, = record match_id
    game: Mapped[str] = mapped_column(String(50), index=True)
    variant: Mapped[str] = mapped_column(String(50))
    players: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)  # 63 secret bits: referee.rng.match_seed
    kind: Mapped[str] = mapped_column(String(20), default="adhoc")  # tournament|ladder|challenge|adhoc
    tournament_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id"), nullable=True
    )
    round: Mapped[int] = mapped_column(Integer, default=0)
    table: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    decision_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bank_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sandbox: Mapped[bool] = mapped_column(Boolean, default=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_until: Mapped[float | None] = mapped_column(Float, nullable=True)  # unix time
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    queued_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    result: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    forfeits: Mapped[list | None] = mapped_column(JSON, nullable=True)
    timings: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    record: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    #: The record in compact form (``arena.records.compact``; 0022): when set, ``record`` is
    #: NULL — unless the conversion kept the JSON of a record that did not verify — and
    #: readers regenerate it through :func:`arena.records.stored.record_data`, never here.
    record_compact: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    #: The engine that made a compact record (``"solenia/1"``: ``compact.ENGINE_VERSIONS``).
    engine_version: Mapped[str | None] = mapped_column(String(40), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Voids per seat across the tries ("1,0"; NULL: none): a second void at one seat's
    #: decisions is that seat's forfeit (``void_limit``), not another try (arena.records.recording).
    voids: Mapped[str | None] = mapped_column(String(100), nullable=True)
    rating_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The engine-played automaton this match was rated against (Hal, the virtual player,
    #: Orbital's bot players: a pseudo-player of :mod:`arena.intake.house`), and its rank in the
    #: rated table — set when the result is recorded, NULL for a match without one (0006).
    automaton_version_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"), nullable=True)
    automaton_rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: False: recorded and ranked, never rated (no rating, history row or ``rating_seq``) — an
    #: unrated challenge, or a rated one in which a seat never played (0015, set when recorded;
    #: :mod:`arena.play.challenges`, :mod:`arena.records.recording`). True for every other match.
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())

    tournament: Mapped[Tournament | None] = relationship(back_populates="matches")
    seats: Mapped[list[MatchSeat]] = relationship(
        back_populates="match", order_by="MatchSeat.seat", cascade="all, delete-orphan"
    )

    def lease_expired(self, now: float | None = None) -> bool:
        return self.lease_until is None or self.lease_until < (now or time.time())


class MatchSeat(Base):
    __tablename__ = "match_seats"
    __table_args__ = (
        # web/ match history "with a forfeit": the ids of matches with a forfeited seat, read
        # index-only (0007_web; the plain index on ``forfeit`` went in 0010).
        Index(
            "ix_match_seats_forfeit_match",
            "match_id",
            postgresql_where=text("forfeit IS NOT NULL"),
            sqlite_where=text("forfeit IS NOT NULL"),
        ),
        # A bot's seats and given matches' seats, index-only: the bot page, history pages,
        # tournament standings (0008_web_cover).
        Index("ix_match_seats_version_cover", "bot_version_id", "match_id", "seat", "rank", "score",
              "forfeit"),
        Index("ix_match_seats_match_cover", "match_id", "seat", "bot_version_id", "rank", "score",
              "forfeit"),
    )

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    forfeit: Mapped[str | None] = mapped_column(String(500), nullable=True)
    mu_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    mu_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_after: Mapped[float | None] = mapped_column(Float, nullable=True)

    match: Mapped[Match] = relationship(back_populates="seats")
    version: Mapped[BotVersion] = relationship()


class Rating(Base):
    __tablename__ = "ratings"

    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(50), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    provisional: Mapped[bool] = mapped_column(Boolean, default=True)
    games_played: Mapped[int] = mapped_column(Integer, default=0)
    distinct_opponents: Mapped[int] = mapped_column(Integer, default=0)
    #: {opponent bot_version_id (str): games together}
    opponent_counts: Mapped[dict] = mapped_column(JSON, default=dict)
    #: {players (str): {seat (str): games}} — the ladder's seat quotas
    seat_counts: Mapped[dict] = mapped_column(JSON, default=dict)
    #: {players (str): games} — the ladder's player-count quotas
    player_counts: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    version: Mapped[BotVersion] = relationship(back_populates="rating")

    @property
    def conservative(self) -> float:
        """mu − 3·sigma: the leaderboard's sort key (a rating the bot very probably exceeds)."""
        return self.mu - 3 * self.sigma

    @property
    def opponent_spread(self) -> float:
        """How evenly the games are spread over opponents: 1.0 = perfectly even, 0 = one opponent.

        The normalised entropy of ``opponent_counts``; the web shows it beside games played so
        a reader can judge how well founded a rating is.
        """
        return opponent_spread(self.opponent_counts)


def opponent_spread(opponent_counts: dict | None) -> float:
    """:attr:`Rating.opponent_spread` of an ``opponent_counts`` ledger (for reads that select
    the column rather than the row, as the bot page does)."""
    counts = [c for c in (opponent_counts or {}).values() if c > 0]
    if len(counts) < 2:
        return 0.0
    total = sum(counts)
    entropy = -sum(c / total * math.log(c / total) for c in counts)
    return entropy / math.log(len(counts))


class RatingHistory(Base):
    __tablename__ = "rating_history"
    # a bot's rating chart, index-only (0008_web_cover)
    __table_args__ = (Index("ix_rating_history_version_cover", "bot_version_id", "seq", "id", "match_id",
                            "mu", "sigma", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    game: Mapped[str] = mapped_column(String(50), index=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class RatingLock(Base):
    __tablename__ = "rating_locks"

    game: Mapped[str] = mapped_column(String(50), primary_key=True)
    last_seq: Mapped[int] = mapped_column(Integer, default=0)


class Ladder(Base):
    __tablename__ = "ladders"

    game: Mapped[str] = mapped_column(String(50), primary_key=True)
    variant: Mapped[str] = mapped_column(String(50))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    queue_target: Mapped[int] = mapped_column(Integer, default=4)
    decision_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bank_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sandbox: Mapped[bool] = mapped_column(Boolean, default=True)
    #: {players (str): ladder matches created} — the player-count quota
    player_counts: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class SprtTest(Base):
    """A new version's sequential test against its predecessor (:mod:`arena.evaluation.sprt`).

    Settings (``elo0``…``replace``) are fixed when the test starts; the progress columns are
    rewritten after every pair of games so the API, the CLI and the website show it live.
    ``replaced`` says whether the candidate took its predecessor's place on the ladder.
    """

    __tablename__ = "sprt_tests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    candidate_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    baseline_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    game: Mapped[str] = mapped_column(String(50))
    variant: Mapped[str] = mapped_column(String(50))
    elo0: Mapped[float] = mapped_column(Float)
    elo1: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    max_pairs: Mapped[int] = mapped_column(Integer)
    replace: Mapped[str] = mapped_column(String(10), default="accept")  # accept | always
    status: Mapped[str] = mapped_column(String(20), default="running")
    llr: Mapped[float] = mapped_column(Float, default=0.0)
    lower: Mapped[float] = mapped_column(Float)
    upper: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    pairs: Mapped[int] = mapped_column(Integer, default=0)
    score: Mapped[float] = mapped_column(Float, default=0.5)
    elo: Mapped[float] = mapped_column(Float, default=0.0)
    elo_error: Mapped[float] = mapped_column(Float, default=0.0)
    #: [LL, LD+DL, LW+DD+WL, DW+WD, WW] pair counts, candidate's view
    pentanomial: Mapped[list] = mapped_column(JSON, default=list)
    #: [losses, draws, wins] game counts, candidate's view
    trinomial: Mapped[list] = mapped_column(JSON, default=list)
    #: Also compared against the house bots (0006): see :mod:`arena.intake.sprt_runner`.
    house: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The part of ``pentanomial`` that came from house-bot comparisons (pair counts).
    house_pentanomial: Mapped[list | None] = mapped_column(JSON, nullable=True)
    replaced: Mapped[bool] = mapped_column(Boolean, default=False)
    message: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    candidate: Mapped[BotVersion] = relationship(foreign_keys=[candidate_version_id])
    baseline: Mapped[BotVersion] = relationship(foreign_keys=[baseline_version_id])
