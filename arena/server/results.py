"""Read-only queries behind the results calls: leaderboard, rating history, match lists.

These are the calls many clients poll, so each is a fixed small number of indexed queries:
the leaderboard reads one row per rated version of the game and keeps each bot's newest; match
lists page by keyset (created_at, id) rather than OFFSET, so page 1,000 costs what page 1 does,
and never load the (large) match records.
"""

from __future__ import annotations

import json
import os
import threading
import time

import grpc
from sqlalchemy import bindparam, func, literal, select, tuple_
from sqlalchemy.orm import Session, selectinload

from arena.db import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    RatingLock,
    get_engine,
    qualification_matches,
    session_scope,
)
from arena.db.accounts import ROLE_ORGANISER, User
from arena.db.match_ids import ids_with_prefix
from arena.intake import refusals
from arena.intake.house import HOUSE_OWNER
from arena.quoting import shorten
from arena.records import stored
from arena.server import convert
from arena.server.errors import ApiError, invalid, not_found
from arena.server.submissions import check_game, get_bot
from referee._proto import arena_pb2 as pb
from referee.faults import proto_number
from referee.record import without_logs

MAX_LEADERBOARD = 1000
RECHECK_ENV = "ARENA_LEADERBOARD_RECHECK_S"
DEFAULT_PAGE = 50
MAX_PAGE = 500
MATCH_STATUSES = ("pending", "running", "done", "failed")


def leaderboard(session: Session, game: str, limit: int, page_token: str = "") -> pb.Leaderboard:
    """Active bots of ``game``, each by its newest (playing) version, best mu - 3 sigma first;
    one page of ``limit`` rows."""
    check_game(game)
    offset, limit = convert.offset_page(limit, page_token, 100, MAX_LEADERBOARD)
    newest = (
        select(BotVersion.bot_id, func.max(BotVersion.number).label("number"))
        .where(BotVersion.held.is_(False))  # a version held by its SPRT is not on the ladder
        .group_by(BotVersion.bot_id)
        .subquery()
    )
    conservative = (Rating.mu - 3 * Rating.sigma).label("conservative")
    rows = session.execute(
        select(Bot.id, Bot.name, Bot.owner, BotVersion.number, Rating.mu, Rating.sigma, Rating.games_played, conservative)
        .join(newest, newest.c.bot_id == Bot.id)
        .join(BotVersion, (BotVersion.bot_id == Bot.id) & (BotVersion.number == newest.c.number))
        .join(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == game))
        .where(Bot.game == game, Bot.active.is_(True))
        .order_by(conservative.desc(), Bot.id)
        .offset(offset)
        .limit(limit + 1)
    ).all()
    return pb.Leaderboard(
        game=game,
        rows=[
            pb.LeaderboardRow(
                rank=offset + i + 1, bot_id=r[0], bot=f"{r[1]} v{r[3]}", owner=r[2], mu=r[4], sigma=r[5],
                conservative=r[7], matches=r[6], house=r[2] == HOUSE_OWNER,
            )
            for i, r in enumerate(rows[:limit])
        ],
        next_page_token=convert.next_offset_token(offset, limit, len(rows)),
    )


class LeaderboardCache:
    """Leaderboards per (game, limit), rebuilt only when something they show may have changed.

    Many clients poll ``GetLeaderboard``; the query behind it joins every bot, version and
    rating of the game, while what it returns changes only when (a) a match of the game is
    rated — every rating update bumps ``rating_locks.last_seq`` in the same transaction — or
    (b) a bot gets a new version (``bot_versions.id`` grows) or (c) is deactivated or
    reactivated. So each call reads one row of (``last_seq``, newest version id) — one indexed
    round trip, no ORM session — and answers from the cache when it matches. (c) happens in
    this server (``DeactivateBot``, qualification), which calls :meth:`invalidate`; a change
    made by another process is picked up within :attr:`max_age` seconds at the latest.

    On a database server that round trip costs as much as the whole gRPC call, so a token read
    less than :attr:`recheck` seconds ago (default 50 ms; ``ARENA_LEADERBOARD_RECHECK_S``) is
    trusted: a result becomes visible at most that long after its commit — far below any
    client's polling interval — and a board polled hundreds of times a second costs one
    statement per 50 ms. SQLite (a local file, no round trip) checks on every call.
    """

    def __init__(self, max_age: float = 2.0, recheck: float | None = None) -> None:
        self.max_age = max_age
        self.recheck = float(os.environ.get(RECHECK_ENV, "0.05")) if recheck is None else recheck
        self._tokens: dict[tuple[str | None, str], tuple[tuple, float]] = {}
        self._rows: dict[tuple[str, int, str], tuple[tuple, float, pb.Leaderboard]] = {}
        self._lock = threading.Lock()
        self._building: dict[tuple[str, int, str], threading.Lock] = {}
        self._token_lock = threading.Lock()
        self._token_conns: dict[str | None, tuple] = {}  # url -> (raw connection, engine, SQL)

    def invalidate(self) -> None:
        with self._lock:
            self._rows.clear()
            self._tokens.clear()

    def get(self, url: str | None, game: str, limit: int, page_token: str = "") -> pb.Leaderboard:
        check_game(game)
        limit = min(limit or 100, MAX_LEADERBOARD)
        key = (game, limit, page_token)
        now = time.monotonic()
        seen = self._tokens.get((url, game))
        if seen is not None and now - seen[1] < self.recheck:
            token = seen[0]
        else:
            token = self._token(url, game)
            if get_engine(url).dialect.name != "sqlite":
                self._tokens[(url, game)] = (token, now)
        hit = self._rows.get(key)
        if hit is not None and hit[0] == token and now - hit[1] < self.max_age:
            return hit[2]
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        # One rebuild at a time per board: the other callers keep answering from a board that
        # is only old (same token), or wait for the rebuild when the token moved.
        if not building.acquire(blocking=hit is None or hit[0] != token):
            return hit[2]
        try:
            hit = self._rows.get(key)
            if hit is not None and hit[0] == token and time.monotonic() - hit[1] < self.max_age:
                return hit[2]  # built by the caller we waited for
            with session_scope(url) as session:
                board = leaderboard(session, game, limit, page_token)
            with self._lock:
                self._rows[key] = (token, time.monotonic(), board)
            return board
        finally:
            building.release()

    def _token(self, url: str | None, game: str) -> tuple:
        """(last rating seq of the game, newest version id, held versions): one statement on a
        connection the cache keeps in autocommit mode — no pool checkout, pre-ping, BEGIN or
        ROLLBACK, which would cost more round trips than the statement itself. One connection
        for all threads, behind a lock: a connection per server thread (there are 32) held
        pooled connections for good, and with the pool's 10 used up every further thread
        waited for one — 16 calls/s at 8 concurrent clients instead of thousands. A thread
        that waited for the lock uses the token its predecessor just read. A broken connection
        (database restarted) is replaced once. SQLite (no round trips; every transaction there
        takes the write lock, see arena.db.session) reads it in a transaction of its own."""
        engine = get_engine(url)
        if engine.dialect.name == "sqlite":
            with engine.connect() as conn:
                return tuple(conn.execute(_TOKEN, {"game": game}).one())
        with self._token_lock:
            seen = self._tokens.get((url, game))
            if seen is not None and time.monotonic() - seen[1] < self.recheck:
                return seen[0]
            for attempt in (0, 1):
                kept = self._token_conns.get(url)
                if kept is None or kept[1] is not engine:
                    raw = engine.raw_connection()
                    raw.driver_connection.autocommit = True
                    kept = (raw, engine, str(_TOKEN.compile(dialect=engine.dialect)))
                    self._token_conns[url] = kept
                raw, _, sql = kept
                try:
                    with raw.cursor() as cur:
                        cur.execute(sql, {"game": game})
                        return tuple(cur.fetchone())
                except engine.dialect.dbapi.Error:
                    self._token_conns.pop(url, None)
                    raw.invalidate()
                    if attempt:
                        raise
        raise AssertionError("unreachable")


_TOKEN = select(
    select(RatingLock.last_seq).where(RatingLock.game == bindparam("game")).scalar_subquery(),
    select(func.max(BotVersion.id)).scalar_subquery(),
    # An SPRT verdict changes which version plays without a new version: it clears ``held``.
    select(func.count(BotVersion.id)).where(BotVersion.held.is_(True)).scalar_subquery(),
)


def rating_history(session: Session, request: pb.GetRatingHistoryRequest) -> pb.RatingHistory:
    """One page of a bot's rating points, oldest first."""
    offset, size = convert.offset_page(request.page_size, request.page_token, 500, 5000)
    bot = get_bot(session, request.bot_id)
    rows = session.execute(
        select(RatingHistory.match_id, RatingHistory.mu, RatingHistory.sigma, RatingHistory.created_at, BotVersion.number)
        .join(BotVersion, BotVersion.id == RatingHistory.bot_version_id)
        .where(BotVersion.bot_id == bot.id, RatingHistory.game == bot.game)
        .order_by(RatingHistory.seq)
        .offset(offset)
        .limit(size + 1)
    ).all()
    return pb.RatingHistory(
        bot_id=bot.id,
        game=bot.game,
        points=[
            pb.RatingPoint(match_id=r[0], mu=r[1], sigma=r[2], at=convert.timestamp(r[3]), version=r[4],
                           rate_time=convert.time_of(r[3]))
            for r in rows[:size]
        ],
        next_page_token=convert.next_offset_token(offset, size, len(rows)),
    )


_SUMMARY_COLUMNS = (
    Match.id, Match.game, Match.variant, Match.status, Match.tournament_id,
    Match.created_at, Match.finished_at, Match.forfeits, Match.voids,
)


def list_matches(session: Session, request: pb.ListMatchesRequest) -> pb.ListMatchesReply:
    """One page of match summaries: two Core queries (the page, then its seats), no ORM objects,
    because building hundreds of ORM instances per page cost more than the queries."""
    size = min(request.page_size or DEFAULT_PAGE, MAX_PAGE)
    query = select(*_SUMMARY_COLUMNS)
    if request.game:
        query = query.where(Match.game == check_game(request.game))
    status = request.status
    if request.match_status:
        by_enum = pb.MatchStatus.Name(request.match_status).removeprefix("MATCH_STATUS_").lower()
        if status and status != by_enum:
            raise invalid(f"status {shorten(status)!r} and match_status {by_enum!r} disagree; give one of them")
        status = by_enum
    if status:
        if status not in MATCH_STATUSES:
            raise invalid(f"unknown match status {shorten(status)!r}; use one of {', '.join(MATCH_STATUSES)}")
        query = query.where(Match.status == status)
    if request.tournament_id:
        query = query.where(Match.tournament_id == request.tournament_id)
    if request.bot_id:
        seats = (
            select(MatchSeat.match_id)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .where(BotVersion.bot_id == request.bot_id)
        )
        query = query.where(Match.id.in_(seats))
    if request.page_token:
        try:
            when, last_id = convert.read_page_token(request.page_token)
        except (ValueError, UnicodeDecodeError):
            raise invalid("page_token is not one this server handed out; start again without it") from None
        # A row-value comparison, so the database walks the (created_at, id) index from there.
        query = query.where(tuple_(Match.created_at, Match.id) < tuple_(literal(when), literal(last_id)))
    rows = session.execute(query.order_by(Match.created_at.desc(), Match.id.desc()).limit(size + 1)).all()
    # One bot's list also shows its qualification matches (not rows of ``matches``: see
    # arena.db.qualification_matches), merged in by (created_at, id) like the rest.
    qualification = [] if not request.bot_id or request.tournament_id else [
        q for q in qualification_matches.of_bot(session, request.bot_id)
        if (not status or q.status == status) and (not request.game or q.game == request.game)
        and (not request.page_token or (q.created_at, q.id) < (when, last_id))
    ]
    if qualification:
        merged = sorted([*rows, *qualification], key=lambda r: (r.created_at, r.id), reverse=True)
        by_id = {q.id: q for q in qualification}
        more = len(merged) > size
        page = merged[:size]
    else:
        by_id = {}
        more = len(rows) > size
        page = rows[:size]
    rows = [r for r in page if r.id not in by_id]
    seats_of: dict[str, list[pb.MatchSeat]] = {r.id: [] for r in rows}
    if rows:
        seat_rows = session.execute(
            select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.score, MatchSeat.rank, MatchSeat.forfeit,
                   BotVersion.bot_id, BotVersion.number, Bot.name)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(MatchSeat.match_id.in_(list(seats_of)))
            .order_by(MatchSeat.match_id, MatchSeat.seat)
        ).all()
        for r in seat_rows:
            seats_of[r.match_id].append(
                pb.MatchSeat(seat=r.seat, bot_id=r.bot_id, bot=r.name, version=r.number,
                             score=r.score or 0.0, rank=r.rank or 0, forfeit_reason=r.forfeit or "")
            )
    reply = pb.ListMatchesReply(
        matches=[
            qualification_summary(by_id[r.id]) if r.id in by_id else pb.MatchSummary(
                id=r.id, game=r.game, variant=r.variant, status=r.status, tournament_id=r.tournament_id or 0,
                seats=convert.with_forfeit_reasons(seats_of[r.id], r.forfeits, r.voids),
                created_at=convert.timestamp(r.created_at), finished_at=convert.timestamp(r.finished_at),
                match_status=convert.enum_of(pb.MatchStatus, "MATCH_STATUS_", r.status),
                create_time=convert.time_of(r.created_at), finish_time=convert.time_of(r.finished_at),
            )
            for r in page
        ]
    )
    if more:
        reply.next_page_token = convert.page_token(page[-1].created_at, page[-1].id)
    return reply


def qualification_summary(q: qualification_matches.QualificationMatch) -> pb.MatchSummary:
    """A qualification match as a summary: the candidate's seat names its bot and version;
    the random bots' seats carry bot_id 0 (they are the server's, no bot of the database)."""
    seats = [
        pb.MatchSeat(seat=s.seat, bot_id=s.bot_id or 0, bot=s.name, version=s.version or 0,
                     score=s.score or 0.0, rank=s.rank or 0, forfeit_reason=s.forfeit or "",
                     fault=proto_number(s.forfeit or ""))
        for s in q.seats
    ]
    return pb.MatchSummary(
        id=q.id, game=q.game, variant=q.variant, status=q.status, tournament_id=0, seats=seats,
        created_at=convert.timestamp(q.created_at), finished_at=convert.timestamp(q.finished_at),
        match_status=convert.enum_of(pb.MatchStatus, "MATCH_STATUS_", q.status),
        create_time=convert.time_of(q.created_at), finish_time=convert.time_of(q.finished_at),
    )


def resolve_match_id(session: Session, match_id: str) -> str:
    """The full id of the match ``match_id`` names: the id itself, or a unique prefix of one
    (the website shows the first 8 characters). Unknown → NOT_FOUND; ambiguous → INVALID_ARGUMENT
    naming the candidates."""
    if not match_id or len(match_id) > 64:
        raise invalid("match_id is required (the id ListMatches shows, or a unique prefix of it)")
    found = ids_with_prefix(session, match_id)  # an index range read, not LIKE (a table scan)
    if not found:
        raise not_found(f"no match with id {match_id!r}")
    if len(found) > 1:
        shown = ", ".join(found[:5]) + (" …" if len(found) > 5 else "")
        raise invalid(f"the id prefix {match_id!r} is ambiguous: it matches {shown}")
    return found[0]


def get_match(session: Session, match_id: str, viewer: User | None = None) -> tuple[Match | None, pb.Match]:
    """The match and its record. Bots' crash logs and stderr tails (``forfeits[].log_tail``)
    are kept only for ``viewer``'s own bots, or all of them for an organiser; anyone else
    (no token) gets the fault reasons without them. ``match_id`` may be a unique prefix.
    A qualification match has no ``Match`` row: (None, its summary and record)."""
    match_id = resolve_match_id(session, match_id)
    match = session.scalar(
        select(Match)
        .where(Match.id == match_id)
        .options(selectinload(Match.seats).selectinload(MatchSeat.version).selectinload(BotVersion.bot))
    )
    if match is None:
        qualification = get_qualification_match(session, match_id, viewer)
        if qualification is None:
            raise not_found(f"no match with id {match_id!r}")
        return None, qualification
    return match, pb.Match(summary=convert.match_summary(match), record_json=record_json(match, log_seats(match, viewer)))


def get_qualification_match(session: Session, match_id: str, viewer: User | None = None) -> pb.Match | None:
    """The qualification match ``match_id`` (a full id) as GetMatch answers it, or None. Its
    candidate's failure text, crash log and stderr tail are kept for the bot's owner and
    organisers only; everyone else reads the fault reason (arena.intake.refusals)."""
    q = qualification_matches.find(session, match_id)
    if q is None:
        return None
    mine = viewer is not None and refusals.may_read(viewer.name, viewer.role, q.bot_owner)
    if q.record is None:
        data = {"match_id": q.id, "status": "failed",
                "error": (q.error or "") if mine else (q.refusal_kind or "server_error")}
    else:
        # The failure text (forfeit message) and the stderr tail: its owner's and organisers'.
        data = without_logs(q.record, frozenset({0})) if mine else refusals.public_record(q.record)
    return pb.Match(summary=qualification_summary(q), record_json=json.dumps(data, ensure_ascii=False))


def log_seats(match: Match, viewer: User | None) -> frozenset[int]:
    """The seats whose bot logs ``viewer`` may read: its own bots', or every seat for an organiser."""
    if viewer is None:
        return frozenset()
    if viewer.role == ROLE_ORGANISER:
        return frozenset(s.seat for s in match.seats)
    return frozenset(s.seat for s in match.seats if s.version.bot.owner == viewer.name)


def record_json(match: Match, keep_logs: frozenset[int] = frozenset()) -> str:
    """The record as GetMatch and WatchMatch send it, in whichever form it is stored
    (:func:`arena.records.stored.record_data`); a compact record the current engine cannot
    replay gives FAILED_PRECONDITION with the reason, never a different game."""
    try:
        data = stored.record_data(match)
    except stored.RecordUnavailable as exc:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, str(exc)) from None
    if data:
        return json.dumps(without_logs(data, keep_logs), ensure_ascii=False)
    if match.status == "failed":
        return json.dumps({"match_id": match.id, "status": "failed", "error": match.error or ""})
    return ""
