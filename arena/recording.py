"""Match rows in the database: create, claim (with a lease), record the result, rate it.

Serialisation of rating updates — the choice and why. Every result of a game is recorded in
one database transaction that first locks that game's row in ``rating_locks``
(``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite every write transaction is ``BEGIN
IMMEDIATE``, which takes the database write lock up front). So updates of one game are applied
strictly one after another, by however many workers on however many machines, with no extra
moving part: the lock lives where the ratings live, commits or rolls back with them, and
survives a Redis restart. Inside the lock the match is re-read: a match already ``done`` is not
counted again (idempotent re-delivery), and the next ``rating_seq`` of the game is assigned —
the exact order a rebuild replays. Different games never wait for each other.

Claiming: a worker takes a match by an atomic conditional UPDATE (``pending``, or ``running``
with an expired lease) and keeps the lease fresh while it plays. A worker killed mid-match stops
renewing, the lease runs out, and the re-delivered task (or the sweeper) plays it again.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena import ratings
from arena.db.models import (
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    RatingLock,
    Tournament,
    utcnow,
)

#: Seconds a claim lasts without renewal; the player renews every LEASE_SECONDS / 3.
LEASE_SECONDS = float(os.environ.get("ARENA_LEASE_SECONDS", "20"))
#: A match that fails this many times for reasons other than a bot's fault is marked failed.
MAX_ATTEMPTS = 3


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def create_match(
    session: Session,
    game: str,
    variant: str,
    version_ids: Sequence[int],
    seed: int,
    *,
    kind: str = "adhoc",
    tournament_id: int | None = None,
    round_no: int = 0,
    table_no: int = 0,
    decision_ms: int | None = None,
    bank_ms: int | None = None,
    sandbox: bool = True,
) -> Match:
    """A pending match with one seat per version (seat order = list order)."""
    if len(set(version_ids)) != len(version_ids):
        raise ValueError("a bot version cannot sit at the same table twice")
    match = Match(
        id=uuid.uuid4().hex,
        game=game,
        variant=variant,
        players=len(version_ids),
        seed=seed,
        kind=kind,
        tournament_id=tournament_id,
        round=round_no,
        table=table_no,
        status="pending",
        decision_ms=decision_ms,
        bank_ms=bank_ms,
        sandbox=sandbox,
        attempts=0,
    )
    match.seats = [MatchSeat(seat=i, bot_version_id=v) for i, v in enumerate(version_ids)]
    session.add(match)
    session.flush()
    return match


@dataclass(frozen=True)
class Claim:
    """What :func:`claim` found: ``claimed`` (play it), ``done``, ``busy`` (another worker holds a
    fresh lease), ``failed`` or ``missing``."""

    outcome: str
    lease_until: float | None = None


def claim(session: Session, match_id: str, worker: str, lease: float = LEASE_SECONDS) -> Claim:
    """Atomically take a match for ``worker``. Commits."""
    now = time.time()
    until = now + lease
    taken = session.execute(
        update(Match)
        .where(
            Match.id == match_id,
            or_(
                Match.status == "pending",
                (Match.status == "running")
                & (or_(Match.lease_until.is_(None), Match.lease_until < now)),
            ),
        )
        .values(
            status="running",
            worker=worker,
            lease_until=until,
            attempts=Match.attempts + 1,
            started_at=utcnow(),
        )
        .execution_options(synchronize_session=False)
    ).rowcount
    session.commit()
    if taken:
        return Claim("claimed", until)
    row = session.execute(select(Match.status, Match.lease_until).where(Match.id == match_id)).first()
    if row is None:
        return Claim("missing")
    status, lease_until = row
    if status == "running":
        return Claim("busy", lease_until)
    return Claim(status, lease_until)


def renew(session: Session, match_id: str, worker: str, lease: float = LEASE_SECONDS) -> bool:
    """Extend our lease; False when we lost it (someone else took the match over). Commits."""
    count = session.execute(
        update(Match)
        .where(Match.id == match_id, Match.worker == worker, Match.status == "running")
        .values(lease_until=time.time() + lease)
        .execution_options(synchronize_session=False)
    ).rowcount
    session.commit()
    return bool(count)


def release(session: Session, match_id: str, worker: str, error: str) -> str:
    """Give a claimed match back after an infrastructure error: pending again, or ``failed``
    after :data:`MAX_ATTEMPTS`. Returns the new status. Commits."""
    match = session.get(Match, match_id, populate_existing=True)
    if match is None or match.status != "running" or match.worker != worker:
        session.commit()
        return match.status if match else "missing"
    match.error = error[-4000:]
    match.lease_until = None
    if match.attempts >= MAX_ATTEMPTS:
        match.status = "failed"
        match.finished_at = utcnow()
        _count_finished(session, match)
    else:
        match.status = "pending"
    session.commit()
    return match.status


def fail(session: Session, match_id: str, error: str) -> None:
    """Mark a match that can never be played (e.g. a bot version no longer exists). Commits."""
    match = session.get(Match, match_id, populate_existing=True)
    if match is not None and match.status not in ("done", "failed"):
        match.status = "failed"
        match.error = error[-4000:]
        match.finished_at = utcnow()
        match.lease_until = None
        _count_finished(session, match)
    session.commit()


def _lock_game(session: Session, game: str) -> RatingLock:
    """Take the per-game rating lock (creating its row the first time)."""
    lock = session.scalar(select(RatingLock).where(RatingLock.game == game).with_for_update())
    if lock is not None:
        return lock
    try:
        with session.begin_nested():
            session.add(RatingLock(game=game, last_seq=0))
    except IntegrityError:
        pass  # another transaction created it first; the SELECT below waits for its lock
    return session.scalar(
        select(RatingLock)
        .where(RatingLock.game == game)
        .with_for_update()
        .execution_options(populate_existing=True)
    )


def forfeited_seats(record: dict[str, Any]) -> list[int]:
    return sorted({int(f["seat"]) for f in record.get("forfeits") or []})


def record_result(session: Session, match_id: str, record: dict[str, Any]) -> bool:
    """Store a finished match and update the ratings, exactly once. Commits.

    Returns True when this call counted the result, False when the match had already been
    recorded (a re-delivered task or a duplicate player): nothing is changed then.
    """
    game = session.execute(select(Match.game).where(Match.id == match_id)).scalar_one()
    lock = _lock_game(session, game)
    match = session.scalar(
        select(Match)
        .where(Match.id == match_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if match.status == "done":
        session.commit()
        return False
    seats = sorted(match.seats, key=lambda s: s.seat)
    result = record["result"]
    forfeited = forfeited_seats(record)
    reasons = {int(f["seat"]): str(f.get("reason", "forfeit")) for f in record.get("forfeits") or []}
    ranks = ratings.effective_ranks(result["ranks"], forfeited,
                                    (result.get("details") or {}).get("automaton_rank"))
    ids = [s.bot_version_id for s in seats]
    rows = {
        r.bot_version_id: r
        for r in session.scalars(
            select(Rating)
            .where(Rating.game == game, Rating.bot_version_id.in_(ids))
            .execution_options(populate_existing=True)
        )
    }
    for vid in ids:
        if vid not in rows:  # a version registered without its rating row: start it now
            version = session.get(BotVersion, vid)
            rows[vid] = Rating(
                bot_version_id=vid, game=game, mu=version.initial_mu,
                sigma=version.initial_sigma, provisional=True, games_played=0,
                distinct_opponents=0, opponent_counts={}, seat_counts={}, player_counts={},
            )
            session.add(rows[vid])
    before = [ratings.Skill(rows[v].mu, rows[v].sigma) for v in ids]
    after = ratings.rate(game, before, ranks) if len(ids) >= 2 else before
    seq = lock.last_seq + 1
    lock.last_seq = seq
    scores = result.get("scores") or [None] * len(ids)
    players = str(len(ids))
    for seat, old, new in zip(seats, before, after, strict=True):
        i = seat.seat
        seat.rank = ranks[i]
        seat.score = float(scores[i]) if scores[i] is not None else None
        seat.forfeit = reasons.get(i)
        seat.mu_before, seat.sigma_before = old.mu, old.sigma
        seat.mu_after, seat.sigma_after = new.mu, new.sigma
        row = rows[seat.bot_version_id]
        row.mu, row.sigma = new.mu, new.sigma
        row.provisional = ratings.is_provisional(new.sigma)
        row.games_played += 1
        opponents = dict(row.opponent_counts or {})
        for other in ids:
            if other != seat.bot_version_id:
                opponents[str(other)] = opponents.get(str(other), 0) + 1
        row.opponent_counts = opponents
        row.distinct_opponents = len(opponents)
        seat_counts = {k: dict(v) for k, v in (row.seat_counts or {}).items()}
        per = seat_counts.setdefault(players, {})
        per[str(i)] = per.get(str(i), 0) + 1
        row.seat_counts = seat_counts
        counts = dict(row.player_counts or {})
        counts[players] = counts.get(players, 0) + 1
        row.player_counts = counts
        row.updated_at = utcnow()
        session.add(
            RatingHistory(
                bot_version_id=seat.bot_version_id,
                game=game,
                match_id=match.id,
                seq=seq,
                mu=new.mu,
                sigma=new.sigma,
            )
        )
    match.status = "done"
    match.rating_seq = seq
    match.result = result
    match.forfeits = record.get("forfeits") or []
    match.timings = record.get("timings")
    match.record = record
    match.finished_at = utcnow()
    match.lease_until = None
    match.error = None
    _count_finished(session, match)
    session.commit()
    return True


def _count_finished(session: Session, match: Match) -> None:
    """Advance the tournament's progress; close it when nothing is left to play."""
    if match.tournament_id is None:
        return
    session.execute(
        update(Tournament)
        .where(Tournament.id == match.tournament_id)
        .values(matches_done=Tournament.matches_done + 1)
        .execution_options(synchronize_session=False)
    )
    tournament = session.get(Tournament, match.tournament_id, populate_existing=True)
    if tournament.matches_done >= tournament.matches_total and tournament.status != "done":
        tournament.status = "done"
        tournament.finished_at = utcnow()
