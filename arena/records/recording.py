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

What is rated follows :mod:`arena.evaluation.ratings`, and ``matches.rated`` (false for an unrated
challenge, :mod:`arena.play.challenges`: recorded and ranked the same way, never rated): a match in
which no seat made a legal move is
recorded (done, ranked, counted in its tournament) but not rated — no rating, history row or
``rating_seq``, the drawn number given back under the lock; in a rated match an idle seat and a
calibrated anchor keep what :func:`arena.evaluation.ratings.settle` lets them keep. The same functions
decide for :func:`arena.evaluation.ratings.rebuild`, from the same stored data.

Claiming: a worker takes a match by an atomic conditional UPDATE (``pending``, or ``running``
with an expired lease) and keeps the lease fresh while it plays. A worker killed mid-match stops
renewing, the lease runs out, and the re-delivered task (or the sweeper) plays it again.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.db.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    RatingLock,
    utcnow,
)
from arena.db.sql import Statements, statements
from arena.evaluation import ratings
from arena.intake import authors
from arena.records import stored as stored_records

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
    rated: bool | None = None,
) -> Match:
    """A pending match with one seat per version (seat order = list order). ``rated``: whether
    it may be rated; None asks :func:`arena.intake.authors.shares_author` — a table seating two bots of
    one author is never rated, whichever caller made it. A caller that knows its seats' owners
    (the ladder, a tournament) passes the answer and saves the query."""
    if len(set(version_ids)) != len(version_ids):
        raise ValueError("a bot version cannot sit at the same table twice")
    if rated is None:
        rated = not authors.shares_author(session, version_ids)
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
        rated=rated,
    )
    match.seats = [MatchSeat(seat=i, bot_version_id=v) for i, v in enumerate(version_ids)]
    session.add(match)
    session.flush()
    return match


# Take the match if it is pending, or running on a lease that ran out (a worker died).
_SQL_CLAIM = (
    "UPDATE matches SET status = 'running', worker = :worker, lease_until = :until,"
    " attempts = attempts + 1, started_at = :started"
    " WHERE id = :mid AND (status = 'pending'"
    " OR (status = 'running' AND (lease_until IS NULL OR lease_until < :now)))"
)
_SQL_MATCH_LEASE = "SELECT status, lease_until FROM matches WHERE id = :mid"


@dataclass(frozen=True)
class Claim:
    """What :func:`claim` found: ``claimed`` (play it), ``done``, ``busy`` (another worker holds a
    fresh lease), ``failed`` or ``missing``."""

    outcome: str
    lease_until: float | None = None


def claim(
    session: Session, match_id: str, worker: str, lease: float = LEASE_SECONDS, *,
    commit: bool = True,
) -> Claim:
    """Atomically take a match for ``worker``. Commits, unless ``commit=False`` and the match
    was claimed: then the caller reads what it needs in the same transaction and commits (one
    write transaction per match start instead of two — on SQLite each one takes the database
    write lock)."""
    found = claim_on(session.connection(), match_id, worker, lease)
    if found.outcome != "claimed" or commit:
        session.commit()
    return found


def claim_on(conn: Connection, match_id: str, worker: str, lease: float = LEASE_SECONDS) -> Claim:
    """:func:`claim` on a Core connection, inside the caller's transaction (the caller commits):
    a worker starting a match needs no ORM session, whose bookkeeping cost more CPU than the
    statements, which run on the driver's cursor (:mod:`arena.db.sql`, a shortcut)."""
    db = statements(conn)
    now = time.time()
    until = now + lease
    taken = db.execute(_SQL_CLAIM, {
        "mid": match_id, "now": now, "worker": worker, "until": until,
        "started": db.when(utcnow()),
    })
    if taken:
        return Claim("claimed", until)
    row = db.first(_SQL_MATCH_LEASE, {"mid": match_id})
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


def read_voids(text: str | None) -> dict[int, int]:
    """``matches.voids`` ("1,0": per seat, how many tries were void at its decisions) as
    ``{seat: voids}`` for ``MatchConfig.earlier_voids``; anything unreadable counts as none."""
    voids: dict[int, int] = {}
    for seat, part in enumerate((text or "").split(",")):
        if part.strip().isdigit() and int(part) > 0:
            voids[seat] = int(part)
    return voids


def write_voids(voids: dict[int, int]) -> str | None:
    """The column's text of ``{seat: voids}`` (None when there are none)."""
    if not any(voids.values()):
        return None
    return ",".join(str(voids.get(seat, 0)) for seat in range(max(voids) + 1))


def release(session: Session, match_id: str, worker: str, error: str,
            void_seat: int | None = None) -> str:
    """Give a claimed match back after an infrastructure error: pending again, or ``failed``
    after :data:`MAX_ATTEMPTS`. ``void_seat``: the try was void at that seat's decisions
    (``referee.match.HostOverloaded``), counted in ``matches.voids`` so the next try forfeits
    that seat if it happens again there. Returns the new status. Commits."""
    match = session.get(Match, match_id, populate_existing=True)
    if match is None or match.status != "running" or match.worker != worker:
        session.commit()
        return match.status if match else "missing"
    if void_seat is not None and void_seat >= 0:
        voids = read_voids(match.voids)
        voids[void_seat] = voids.get(void_seat, 0) + 1
        match.voids = write_voids(voids)
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


_T_RATING, _T_MATCH = Rating.__table__, Match.__table__

# The per-match statements of record_result, run on the driver's cursor (arena.db.sql: with the
# shortcut sql_driver_cursor on; SQLAlchemy's execution layer cost more CPU than SQLite took to
# run them), else through SQLAlchemy as text() constructs.
_SQL_DRAW_SEQ = "UPDATE rating_locks SET last_seq = last_seq + 1 WHERE game = :game RETURNING last_seq"
_SQL_UNDRAW_SEQ = "UPDATE rating_locks SET last_seq = last_seq - 1 WHERE game = :game"
_SQL_LOCK_SEQ = "SELECT last_seq FROM rating_locks WHERE game = :game"  # SQLite < 3.35 only
_SQL_SET_SEQ = "UPDATE rating_locks SET last_seq = :seq WHERE game = :game"
_SQL_MATCH_GAME = "SELECT game FROM matches WHERE id = :mid"
_SQL_MATCH_STATE = "SELECT status, tournament_id, rated, kind FROM matches WHERE id = :mid"
# Whether the match stays rated: not an unrated challenge (matches.rated false), nor a rated
# challenge in which a seat never played (:idle) — a challenger picks its opponent, and must not
# gain from one it knows is offline (arena.play.challenges). The SET clauses all read the old row.
_RATED_NOW = "(rated AND NOT (kind = 'challenge' AND :idle))"
_SQL_FINISH = (
    f"UPDATE matches SET status = 'done', rated = {_RATED_NOW},"
    f" rating_seq = CASE WHEN {_RATED_NOW} THEN CAST(:seq AS INTEGER) END, result = :result, forfeits = :forfeits,"
    " timings = :timings, record = :record, record_compact = :compact, engine_version = :engine,"
    " finished_at = :now, lease_until = NULL, error = NULL"
    " WHERE id = :mid"
)
# Done only if it was not: no row back means it already was (a duplicate delivery).
_SQL_FINISH_UNLESS_DONE = _SQL_FINISH + " AND status != 'done' RETURNING tournament_id, rated"
_SQL_SEATS_AND_RATINGS = (
    "SELECT s.seat, s.bot_version_id, r.mu, r.sigma, r.games_played, r.opponent_counts,"
    " r.seat_counts, r.player_counts, b.owner FROM match_seats s"
    " JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id"
    " LEFT OUTER JOIN ratings r ON r.bot_version_id = s.bot_version_id AND r.game = :game"
    " WHERE s.match_id = :mid ORDER BY s.seat"
)
# A match not rated (no seat played) still records each seat's rank, score and forfeit.
_SQL_UPDATE_SEAT_UNRATED = (
    "UPDATE match_seats SET rank = :rank, score = :score, forfeit = :forfeit"
    " WHERE match_id = :mid AND seat = :seat"
)
_SQL_UPDATE_RATING = (
    "UPDATE ratings SET mu = :mu, sigma = :sigma, provisional = :provisional,"
    " games_played = :games, opponent_counts = :opponents, distinct_opponents = :distinct,"
    " seat_counts = :seats, player_counts = :players, updated_at = :now"
    " WHERE bot_version_id = :vid AND game = :game"
)
_SQL_UPDATE_SEAT = (
    "UPDATE match_seats SET rank = :rank, score = :score, forfeit = :forfeit, mu_before = :mu0,"
    " sigma_before = :sigma0, mu_after = :mu1, sigma_after = :sigma1"
    " WHERE match_id = :mid AND seat = :seat"
)
_HISTORY_COLUMNS = ("bot_version_id", "game", "match_id", "seq", "mu", "sigma", "created_at")
# One more match done, and the tournament closed by the same statement when it was the last
# (the right-hand sides see the row as it was: matches_done + 1 is the new count).
_SQL_TOURNAMENT_DONE_ONE = (
    "UPDATE tournaments SET matches_done = matches_done + 1,"
    " status = CASE WHEN matches_done + 1 >= matches_total AND status != 'done' THEN 'done'"
    " ELSE status END,"
    " finished_at = CASE WHEN matches_done + 1 >= matches_total AND status != 'done' THEN :now"
    " ELSE finished_at END"
    " WHERE id = :tid"
)


def record_result(
    session: Session, match_id: str, record: dict[str, Any], *, game: str | None = None,
    record_text: str | None = None, record_compact: bytes | None = None, engine_version: str | None = None,
) -> bool:
    """Store a finished match and update the ratings, exactly once. Commits.

    :func:`record_result_on` in the session's transaction, then the commit."""
    counted = record_result_on(session.connection(), match_id, record, game=game,
                               record_text=record_text, record_compact=record_compact,
                               engine_version=engine_version, session=session)
    if counted and session.identity_map:
        session.expire_all()  # objects this session loaded before now hold the old values
    session.commit()
    return counted


def record_result_on(
    conn: Connection, match_id: str, record: dict[str, Any], *, game: str | None = None,
    record_text: str | None = None, record_compact: bytes | None = None, engine_version: str | None = None,
    session: Session | None = None,
) -> bool:
    """:func:`record_result` on a Core connection, inside the caller's transaction (the caller
    commits; on SQLite that transaction began with ``BEGIN IMMEDIATE``, the database write
    lock). A worker records every match this way, without an ORM session: its transaction
    around the statements cost more CPU than a Core one (~40 µs a match). The few rare steps
    that use the ORM (a game's first result creates its lock row, a solo match's automaton, a
    version without its rating row) get ``session``, or a session joined to ``conn``'s
    transaction, made when first needed; it flushes into that transaction and never commits it.

    Returns True when this call counted the result, False when the match had already been
    recorded (a re-delivered task or a duplicate player): nothing is changed then.

    A few statements on the driver's cursor (:mod:`arena.db.sql`, a shortcut whose public path
    runs them through SQLAlchemy; executemany for the
    seats and ratings, one multi-row insert for the history) rather than ORM objects or Core
    statements: the same rows and values, in a fraction of the per-match CPU time. Where the
    database has ``UPDATE … RETURNING`` (PostgreSQL, SQLite ≥ 3.35), taking the rating lock
    also draws the sequence number, and marking the match done also tells whether it already
    was — two statements instead of four. ``game`` is the match's game when the caller knows it
    (a worker does: it read it to play the match), saving one more read. ``record_text`` is the
    whole record as JSON text when the caller has encoded it already (a worker does:
    ``arena.workers.tasks._record_for_storage``); ``record`` then needs only ``result`` and ``forfeits``.
    ``record_compact`` (with its ``engine_version``) is the record in compact form
    (:mod:`arena.records.compact`, what a worker stores): then no JSON is stored at all, and
    ``record`` again needs only ``result`` and ``forfeits``.
    """
    started = time.perf_counter()
    orm = _JoinedSession(conn, session)
    db = statements(conn)
    if game is None:
        game = db.first(_SQL_MATCH_GAME, {"mid": match_id})[0]
    returning = conn.dialect.update_returning
    if returning:
        drawn = db.first(_SQL_DRAW_SEQ, {"game": game})  # the lock and the next number at once
        if drawn is None:  # the game's first result: create its lock row, then draw
            _lock_game(orm.get(), game)
            drawn = db.first(_SQL_DRAW_SEQ, {"game": game})
        seq = drawn[0]
    else:  # SQLite before 3.35, which has no FOR UPDATE either: BEGIN IMMEDIATE locked it all
        last = db.first(_SQL_LOCK_SEQ, {"game": game})
        seq = (last[0] if last is not None else _lock_game(orm.get(), game).last_seq) + 1
    _lock_timing.wait = time.perf_counter() - started
    result = record["result"]
    forfeits = record.get("forfeits") or []
    if record_compact is not None:
        record_text = None

        def stored() -> Any:  # regenerated only when a seat forfeited after the first decision
            return stored_records.record_of(None, record_compact)
    else:
        kept = record_text if record_text is not None else record

        def stored() -> Any:
            return kept
    idle = ratings.idle_seats(forfeits, ratings.decisions_for_idle(forfeits, stored))
    rated = len(idle) < len(result["ranks"])  # some seat made a legal move (ratings.py)
    now = utcnow()
    finish = {
        "mid": match_id, "seq": seq if rated else None, "idle": db.flag(bool(idle)), "result": db.json(result),
        "forfeits": db.json(forfeits), "timings": db.json(record.get("timings")),
        "record": None if record_compact is not None else record_text if record_text is not None
        else db.json(record),
        "compact": record_compact, "engine": engine_version if record_compact is not None else None,
        "now": db.when(now),
    }
    if returning:
        # Done first, only if it was not: the match row is locked as the FOR UPDATE read did.
        done = db.first(_SQL_FINISH_UNLESS_DONE, finish)
        rated = rated and done is not None and bool(done[1])  # a challenge may be unrated (_RATED_NOW)
        if done is None or not rated:  # recorded already, or not rated: give the number back
            db.execute(_SQL_UNDRAW_SEQ, {"game": game})  # (we hold the lock: no one drew since)
        if done is None:
            return False
        tournament_id = done[0]
    else:
        status, tournament_id, match_rated, kind = db.first(_SQL_MATCH_STATE, {"mid": match_id})
        if status == "done":
            return False
        rated = rated and bool(match_rated) and not (kind == "challenge" and idle)  # as _RATED_NOW
    found = [_SeatRow(*r) for r in db.all(_SQL_SEATS_AND_RATINGS, {"mid": match_id, "game": game})]
    seats = [(r.seat, r.bot_version_id) for r in found]
    forfeited = forfeited_seats(record)
    reasons = {int(f["seat"]): str(f.get("reason", "forfeit")) for f in forfeits}
    ranks = ratings.effective_ranks(result["ranks"], forfeited,
                                    (result.get("details") or {}).get("automaton_rank"))
    ids = [vid for _, vid in seats]
    scores = [*(result.get("scores") or [None] * len(ids)), None][:len(ids)]
    automaton = ratings.automaton_table(result, len(ids), sorted(forfeited))
    stamp = finish["now"]
    if not rated:  # recorded, ranked, not rated: no rating, history row or sequence number
        seat_ranks = automaton[0] if automaton is not None else ranks
        db.many(_SQL_UPDATE_SEAT_UNRATED, [{
            "mid": match_id, "seat": i, "rank": seat_ranks[i],
            "score": float(scores[i]) if scores[i] is not None else None, "forfeit": reasons.get(i),
        } for i, _ in seats])
        if not returning:
            db.execute(_SQL_FINISH, finish)
        _advance_tournament(db, tournament_id, stamp)
        return True
    players = str(len(ids))
    rows = {
        r.bot_version_id: _Row(r.bot_version_id, r.mu, r.sigma, r.games_played,
                               db.loads(r.opponent_counts), db.loads(r.seat_counts),
                               db.loads(r.player_counts))
        for r in found if r.mu is not None
    }
    owners = [r.owner for r in found]
    lazy = [i in idle for i, _ in seats]
    auto = _automaton_row(orm.get(), match_id, game, len(ids)) if automaton is not None else None
    auto_vid = None
    if auto is not None:  # a solo automaton (or bot players) took part: it is rated too
        auto_vid = auto.bot_version_id
        ranks = [*automaton[0], automaton[1]]
        seats = [*seats, (None, auto_vid)]  # rated like a seat, but it has no seat row
        ids.append(auto_vid)
        rows[auto_vid] = auto
        owners.append(ratings.ANCHOR_OWNER)  # an automaton is a house pseudo-player
        lazy.append(False)
    for vid in ids:
        if vid not in rows:  # a version registered without its rating row: start it now
            version = orm.get().get(BotVersion, vid)
            conn.execute(insert(_T_RATING).values(
                bot_version_id=vid, game=game, mu=version.initial_mu,
                sigma=version.initial_sigma, provisional=True, games_played=0,
                distinct_opponents=0, opponent_counts={}, seat_counts={}, player_counts={},
                updated_at=now,
            ))
            rows[vid] = _Row(vid, version.initial_mu, version.initial_sigma, 0, {}, {}, {})
    before = [ratings.Skill(rows[v].mu, rows[v].sigma) for v in ids]
    if len(ids) >= 2:  # anchors fixed and idle seats held back after the usual update
        fixed = [ratings.is_anchored(o, b.sigma) for o, b in zip(owners, before, strict=True)]
        after = ratings.settle(before, ratings.rate(game, before, ranks), fixed, lazy)
    else:
        after = before
    rating_params, seat_params, history = [], [], []
    for (i, vid), old, new in zip(seats, before, after, strict=True):
        row = rows[vid]
        if i is not None:
            seat_params.append({
                "mid": match_id, "seat": i, "rank": ranks[i],
                "score": float(scores[i]) if scores[i] is not None else None,
                "forfeit": reasons.get(i), "mu0": old.mu, "sigma0": old.sigma,
                "mu1": new.mu, "sigma1": new.sigma,
            })
        opponents = dict(row.opponent_counts or {})
        for other in ids:
            if other != vid:
                opponents[str(other)] = opponents.get(str(other), 0) + 1
        seat_counts = {k: dict(v) for k, v in (row.seat_counts or {}).items()}
        if i is not None:
            per = seat_counts.setdefault(players, {})
            per[str(i)] = per.get(str(i), 0) + 1
        counts = dict(row.player_counts or {})
        counts[players] = counts.get(players, 0) + 1
        rating_params.append({
            "vid": vid, "game": game, "mu": new.mu, "sigma": new.sigma,
            "provisional": db.flag(ratings.is_provisional(new.sigma)), "games": row.games_played + 1,
            "opponents": db.json(opponents), "distinct": len(opponents), "seats": db.json(seat_counts),
            "players": db.json(counts), "now": stamp,
        })
        history.append((vid, game, match_id, seq, new.mu, new.sigma, stamp))
    if not returning:
        db.execute(_SQL_SET_SEQ, {"game": game, "seq": seq})
    db.many(_SQL_UPDATE_RATING, rating_params)
    db.many(_SQL_UPDATE_SEAT, seat_params)
    db.insert_rows("rating_history", _HISTORY_COLUMNS, history)
    if not returning:
        db.execute(_SQL_FINISH, finish)
    if auto_vid is not None:
        conn.execute(update(_T_MATCH).where(_T_MATCH.c.id == match_id).values(
            automaton_version_id=auto_vid, automaton_rank=ranks[-1]))
    _advance_tournament(db, tournament_id, stamp)
    return True


class _JoinedSession:
    """The ORM session :func:`record_result_on` uses for its rare steps: the caller's, or one
    made on first use, bound to the connection and joined to its transaction (it flushes there,
    and never commits or closes it: the caller does)."""

    __slots__ = ("conn", "session")

    def __init__(self, conn: Connection, session: Session | None) -> None:
        self.conn, self.session = conn, session

    def get(self) -> Session:
        if self.session is None:
            self.session = Session(bind=self.conn, join_transaction_mode="rollback_only")
        return self.session


_T_BOT, _T_VERSION = Bot.__table__, BotVersion.__table__
_MATCH_VARIANT = select(_T_MATCH.c.variant).where(_T_MATCH.c.id == bindparam("b_mid"))
_AUTOMATON_RATING = (
    select(_T_RATING.c.bot_version_id, _T_RATING.c.mu, _T_RATING.c.sigma, _T_RATING.c.games_played,
           _T_RATING.c.opponent_counts, _T_RATING.c.seat_counts, _T_RATING.c.player_counts)
    .select_from(_T_BOT)
    .join(_T_VERSION, _T_VERSION.c.bot_id == _T_BOT.c.id)
    .join(_T_RATING, (_T_RATING.c.bot_version_id == _T_VERSION.c.id) & (_T_RATING.c.game == _T_BOT.c.game))
    .where(_T_BOT.c.owner == bindparam("b_owner"), _T_BOT.c.name == bindparam("b_name"),
           _T_BOT.c.game == bindparam("b_game"), _T_VERSION.c.kind == "automaton")
)


def _automaton_row(session: Session, match_id: str, game: str, players: int) -> _Row | None:
    """The rating of the pseudo-player the match is rated against (created on first use), by
    the match's variant (arena.intake.house.automaton_name); None for a game whose automaton is
    unnamed. Core statements: this runs on the recording path of every solo match."""
    from arena.intake import house

    conn = session.connection()
    variant = conn.execute(_MATCH_VARIANT, {"b_mid": match_id}).scalar_one()
    name = house.automaton_name(game, variant, players)
    if not name:
        return None
    params = {"b_owner": house.HOUSE_OWNER, "b_name": name, "b_game": game}
    r = conn.execute(_AUTOMATON_RATING, params).first()
    if r is None:
        try:
            house.ensure_automaton(session, game, name)
        except ValueError as exc:  # a bot squats the name: record the match unrated, say why
            import logging

            logging.getLogger("arena.records.recording").warning("match %s not rated against %s: %s", match_id, name, exc)
            return None
        r = conn.execute(_AUTOMATON_RATING, params).one()
    return _Row(r.bot_version_id, r.mu, r.sigma, r.games_played, r.opponent_counts, r.seat_counts,
                r.player_counts)


_lock_timing = threading.local()


def last_lock_wait() -> float:
    """Seconds this thread's last :func:`record_result` took to hold the per-game rating lock
    (with SQLite, the database write lock): what a worker waits for the others. Benchmarks."""
    return getattr(_lock_timing, "wait", 0.0)


@dataclass(frozen=True, slots=True)
class _SeatRow:
    """A seat with its version's rating as :data:`_SQL_SEATS_AND_RATINGS` reads it (the rating
    columns None for a version without its rating row yet; JSON columns as the driver gives
    them)."""

    seat: int
    bot_version_id: int
    mu: float | None
    sigma: float | None
    games_played: int | None
    opponent_counts: Any
    seat_counts: Any
    player_counts: Any
    owner: str


@dataclass(frozen=True)
class _Row:
    """A rating row as :func:`record_result` reads it (for a row it has just created)."""

    bot_version_id: int
    mu: float
    sigma: float
    games_played: int
    opponent_counts: dict
    seat_counts: dict
    player_counts: dict


def _advance_tournament(db: Statements, tournament_id: int | None, stamp: object) -> None:
    """One more match of the tournament finished; the same statement closes the tournament when
    it was the last (``stamp``: its ``finished_at`` as :meth:`Statements.when` gives it)."""
    if tournament_id is not None:
        db.execute(_SQL_TOURNAMENT_DONE_ONE, {"tid": tournament_id, "now": stamp})


def _count_finished(session: Session, match: Match) -> None:
    """Advance the tournament's progress; close it when nothing is left to play."""
    db = statements(session.connection())
    _advance_tournament(db, match.tournament_id, db.when(utcnow()))
