"""One bot: its versions and ratings, rating history, results by seat and by opponent.

Every aggregate here is bounded by the bot's own seats (found through the index on
``match_seats.bot_version_id``), so the page stays fast however many matches the site holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session, aliased

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, RatingHistory
from arena.db.models import SprtTest


@dataclass(frozen=True)
class VersionInfo:
    id: int
    number: int
    kind: str
    created_at: datetime | None
    mu: float
    sigma: float
    conservative: float
    provisional: bool
    games_played: int
    opponent_spread: float
    #: Held back by an SPRT (running, or it did not accept): not on the ladder.
    held: bool = False
    #: {players (str): {seat (str): games}} and {players (str): games} — the fairness ledger.
    seat_counts: dict = field(default_factory=dict)
    player_counts: dict = field(default_factory=dict)
    distinct_opponents: int = 0


@dataclass(frozen=True)
class SprtInfo:
    """One SPRT: version ``candidate`` against ``baseline`` (see arena.sprt)."""

    candidate: int
    baseline: int
    status: str
    replaced: bool
    replace: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    games: int
    pairs: int
    score: float
    elo: float
    elo_error: float
    pentanomial: list
    created_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class HistoryPoint:
    seq: int
    version: int
    match_id: str
    mu: float
    sigma: float
    at: datetime | None


@dataclass(frozen=True)
class SeatResult:
    players: int
    seat: int
    matches: int
    wins: int
    avg_rank: float | None
    avg_score: float | None
    forfeits: int


@dataclass(frozen=True)
class OpponentResult:
    bot_id: int
    bot_name: str
    owner: str
    matches: int
    ahead: int
    behind: int
    tied: int


@dataclass
class BotPage:
    id: int
    name: str
    owner: str
    game: str
    active: bool
    created_at: datetime | None
    versions: list[VersionInfo]
    current: VersionInfo | None
    history: list[HistoryPoint] = field(default_factory=list)
    by_seat: list[SeatResult] = field(default_factory=list)
    #: The ``OPPONENTS`` opponents met most often (``opponents_met`` in all).
    by_opponent: list[OpponentResult] = field(default_factory=list)
    opponents_met: int = 0
    #: Every SPRT of its versions, newest first.
    sprt: list[SprtInfo] = field(default_factory=list)


def bot_page(session: Session, bot_id: int) -> BotPage | None:
    bot = session.get(Bot, bot_id)
    if bot is None:
        return None
    versions = []
    for v, r in session.execute(
        select(BotVersion, Rating)
        .outerjoin(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == bot.game))
        .where(BotVersion.bot_id == bot_id)
        .order_by(BotVersion.number)
    ).all():
        mu = r.mu if r else v.initial_mu
        sigma = r.sigma if r else v.initial_sigma
        versions.append(
            VersionInfo(
                id=v.id,
                number=v.number,
                kind=v.kind,
                created_at=v.created_at,
                mu=mu,
                sigma=sigma,
                conservative=mu - 3 * sigma,
                provisional=r.provisional if r else True,
                games_played=r.games_played if r else 0,
                opponent_spread=r.opponent_spread if r else 0.0,
                held=v.held,
                seat_counts=dict(r.seat_counts or {}) if r else {},
                player_counts=dict(r.player_counts or {}) if r else {},
                distinct_opponents=r.distinct_opponents if r else 0,
            )
        )
    ids = [v.id for v in versions]
    page = BotPage(
        id=bot.id,
        name=bot.name,
        owner=bot.owner,
        game=bot.game,
        active=bot.active,
        created_at=bot.created_at,
        versions=versions,
        current=next((v for v in reversed(versions) if not v.held), None),
    )
    if not ids:
        return page
    number_of = {v.id: v.number for v in versions}
    page.sprt = [
        SprtInfo(
            number_of[t.candidate_version_id], number_of[t.baseline_version_id], t.status, t.replaced,
            t.replace, t.elo0, t.elo1, t.alpha, t.beta, t.llr, t.lower, t.upper, t.games, t.pairs,
            t.score, t.elo, t.elo_error, list(t.pentanomial or []), t.created_at, t.finished_at,
        )
        for t in session.scalars(select(SprtTest).where(SprtTest.bot_id == bot_id).order_by(SprtTest.id.desc()))
    ]
    page.history = [
        HistoryPoint(seq, number_of[vid], mid, mu, sigma, at)
        for vid, seq, mid, mu, sigma, at in session.execute(
            select(
                RatingHistory.bot_version_id,
                RatingHistory.seq,
                RatingHistory.match_id,
                RatingHistory.mu,
                RatingHistory.sigma,
                RatingHistory.created_at,
            )
            .where(RatingHistory.bot_version_id.in_(ids))
            .order_by(RatingHistory.seq, RatingHistory.id)
        ).all()
    ]
    page.by_seat = _by_seat(session, ids)
    page.by_opponent, page.opponents_met = _by_opponent(session, ids)
    return page


def _by_seat(session: Session, ids: list[int]) -> list[SeatResult]:
    rows = session.execute(
        select(
            Match.players,
            MatchSeat.seat,
            func.count(),
            func.sum(case((MatchSeat.rank == 1, 1), else_=0)),
            func.avg(MatchSeat.rank),
            func.avg(MatchSeat.score),
            func.sum(case((MatchSeat.forfeit.is_not(None), 1), else_=0)),
        )
        .join(Match, Match.id == MatchSeat.match_id)
        .where(MatchSeat.bot_version_id.in_(ids), MatchSeat.rank.is_not(None))
        .group_by(Match.players, MatchSeat.seat)
        .order_by(Match.players, MatchSeat.seat)
    ).all()
    return [
        SeatResult(p, s, n, int(w or 0), _f(r), _f(sc), int(ff or 0))
        for p, s, n, w, r, sc, ff in rows
    ]


#: Opponents listed on a bot's page: a bot with 300 ladder matches meets ~600 bots, and
#: rendering them all was most of the page's 50 ms of CPU; the rest are counted.
OPPONENTS = 50


def _by_opponent(session: Session, ids: list[int]) -> tuple[list[OpponentResult], int]:
    me = aliased(MatchSeat)
    other = aliased(MatchSeat)
    rows = session.execute(
        select(
            Bot.id,
            Bot.name,
            Bot.owner,
            func.count(),
            func.sum(case((me.rank < other.rank, 1), else_=0)),
            func.sum(case((me.rank > other.rank, 1), else_=0)),
            func.sum(case((me.rank == other.rank, 1), else_=0)),
            func.count().over(),  # opponents in all, before the limit
        )
        .select_from(me)
        .join(other, and_(other.match_id == me.match_id, other.seat != me.seat))
        .join(BotVersion, BotVersion.id == other.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        # A rank is only set once the match is done, so no join with (and scan of) matches.
        .where(me.bot_version_id.in_(ids), me.rank.is_not(None), other.rank.is_not(None))
        .group_by(Bot.id, Bot.name, Bot.owner)
        .order_by(func.count().desc(), Bot.name)
        .limit(OPPONENTS)
    ).all()
    return [
        OpponentResult(bid, name, owner, n, int(a or 0), int(b or 0), int(t or 0))
        for bid, name, owner, n, a, b, t, _ in rows
    ], (rows[0][-1] if rows else 0)


def _f(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
