"""One bot: its versions and ratings, rating history, results by seat and by opponent.

Games against a person (matches of kind ``human``, played at ``/play``) are never rated, so
they count in none of these tables: a bot's results by seat and by opponent are those of its
rated and unrated bot-against-bot matches only; the bot's match list still shows its human games,
marked ``human``. The person's seat itself (the pseudo-bot ``human``, a version of kind
``human``) is no bot: its page says what it is and has no versions, ratings or tables.

Every aggregate here is bounded by the bot's own seats (found through the index on
``match_seats.bot_version_id``), so the page stays fast however many matches the site holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import and_, bindparam, case, func, select
from sqlalchemy.orm import Session, aliased

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, RatingHistory
from arena.db.models import SprtTest, opponent_spread
from arena.play.human import HUMAN_KIND
from web.queries.matches import SEAT_RESULTS


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
    """One SPRT: version ``candidate`` against ``baseline`` (see arena.evaluation.sprt)."""

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
    #: The pseudo-bot of a person's seat (``arena.play.human``), not a bot: no versions or tables.
    human: bool = False


# The page's statements, built once: composing a SELECT of this size costs ~0.5-2 ms of CPU
# (most of a statement's Python cost), against nothing to look up a built one. The values go
# in as bound parameters; the version ids as an expanding ``IN``.
_me, _other = aliased(MatchSeat), aliased(MatchSeat)
_IDS = bindparam("ids", expanding=True)

#: The bot with each version and its rating (one row with NULL versions for a bot without any).
_BOT_VERSIONS = (
    select(
        Bot.id, Bot.name, Bot.owner, Bot.game, Bot.active, Bot.created_at,
        BotVersion.id, BotVersion.number, BotVersion.kind, BotVersion.created_at,
        BotVersion.initial_mu, BotVersion.initial_sigma, BotVersion.held,
        Rating.bot_version_id, Rating.mu, Rating.sigma, Rating.provisional, Rating.games_played,
        Rating.opponent_counts, Rating.seat_counts, Rating.player_counts,
        Rating.distinct_opponents,
    )
    .select_from(Bot)
    .outerjoin(BotVersion, BotVersion.bot_id == Bot.id)
    .outerjoin(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == Bot.game))
    .where(Bot.id == bindparam("bot"))
    .order_by(BotVersion.number)
)
_SPRT = select(SprtTest).where(SprtTest.bot_id == bindparam("bot")).order_by(SprtTest.id.desc())
_HISTORY = (
    select(
        RatingHistory.bot_version_id,
        RatingHistory.seq,
        RatingHistory.match_id,
        RatingHistory.mu,
        RatingHistory.sigma,
        RatingHistory.created_at,
    )
    .where(RatingHistory.bot_version_id.in_(_IDS))
    .order_by(RatingHistory.seq, RatingHistory.id)
)
_BY_SEAT = (
    select(
        Match.players,
        MatchSeat.seat,
        *SEAT_RESULTS,
    )
    .join(Match, Match.id == MatchSeat.match_id)
    .where(
        MatchSeat.bot_version_id.in_(_IDS), MatchSeat.rank.is_not(None), Match.kind != HUMAN_KIND
    )
    .group_by(Match.players, MatchSeat.seat)
    .order_by(Match.players, MatchSeat.seat)
)
_BY_OPPONENT = (
    select(
        Bot.id,
        Bot.name,
        Bot.owner,
        func.count(),
        func.sum(case((_me.rank < _other.rank, 1), else_=0)),
        func.sum(case((_me.rank > _other.rank, 1), else_=0)),
        func.sum(case((_me.rank == _other.rank, 1), else_=0)),
        func.count().over(),  # opponents in all, before the limit
    )
    .select_from(_me)
    .join(_other, and_(_other.match_id == _me.match_id, _other.seat != _me.seat))
    .join(BotVersion, BotVersion.id == _other.bot_version_id)
    .join(Bot, Bot.id == BotVersion.bot_id)
    # A rank is only set once the match is done, so no scan of matches: the join by primary
    # key only leaves out the games against a person (never rated, not counted here).
    .join(Match, Match.id == _me.match_id)
    .where(
        _me.bot_version_id.in_(_IDS),
        _me.rank.is_not(None),
        _other.rank.is_not(None),
        Match.kind != HUMAN_KIND,
    )
    .group_by(Bot.id, Bot.name, Bot.owner)
    .order_by(func.count().desc(), Bot.name)
    .limit(bindparam("limit"))
)


def bot_page(session: Session, bot_id: int) -> BotPage | None:
    found = session.execute(_BOT_VERSIONS, {"bot": bot_id}).all()
    if not found:
        return None
    if any(row[8] == HUMAN_KIND for row in found):
        bid, name, owner, game, active, created = found[0][:6]
        return BotPage(bid, name, owner, game, active, created, [], None, human=True)
    versions = []
    for row in found:
        if row[6] is None:  # the bot has no version (outer join)
            continue
        vid, number, kind, created_at, initial_mu, initial_sigma, held = row[6:13]
        rated, mu, sigma, provisional, played, opponents, seat_counts, player_counts, distinct = (
            row[13:])
        if rated is None:  # no rating row yet: the version's starting values
            mu, sigma, provisional, played, distinct = initial_mu, initial_sigma, True, 0, 0
            opponents = seat_counts = player_counts = None
        versions.append(
            VersionInfo(
                id=vid,
                number=number,
                kind=kind,
                created_at=created_at,
                mu=mu,
                sigma=sigma,
                conservative=mu - 3 * sigma,
                provisional=provisional,
                games_played=played,
                opponent_spread=opponent_spread(opponents) if rated is not None else 0.0,
                held=held,
                seat_counts=dict(seat_counts or {}),
                player_counts=dict(player_counts or {}),
                distinct_opponents=distinct,
            )
        )
    ids = [v.id for v in versions]
    bid, name, owner, game, active, created = found[0][:6]
    page = BotPage(
        id=bid,
        name=name,
        owner=owner,
        game=game,
        active=active,
        created_at=created,
        versions=versions,
        current=next((v for v in reversed(versions) if not v.held), None),
    )
    if not ids:
        return page
    number_of = {v.id: v.number for v in versions}
    if len(ids) > 1:  # an SPRT tests a new version against an older one: none with one version
        page.sprt = [
            SprtInfo(
                number_of[t.candidate_version_id], number_of[t.baseline_version_id], t.status,
                t.replaced, t.replace, t.elo0, t.elo1, t.alpha, t.beta, t.llr, t.lower, t.upper,
                t.games, t.pairs, t.score, t.elo, t.elo_error, list(t.pentanomial or []),
                t.created_at, t.finished_at,
            )
            for t in session.scalars(_SPRT, {"bot": bot_id})
        ]
    page.history = [
        HistoryPoint(seq, number_of[vid], mid, mu, sigma, at)
        for vid, seq, mid, mu, sigma, at in session.execute(_HISTORY, {"ids": ids}).all()
    ]
    page.by_seat = _by_seat(session, ids)
    page.by_opponent, page.opponents_met = _by_opponent(session, ids)
    return page


def _by_seat(session: Session, ids: list[int]) -> list[SeatResult]:
    rows = session.execute(_BY_SEAT, {"ids": ids}).all()
    return [
        SeatResult(p, s, n, int(w or 0), _f(r), _f(sc), int(ff or 0))
        for p, s, n, w, r, sc, ff in rows
    ]


#: Opponents listed on a bot's page: a bot with 300 ladder matches meets ~600 bots, and
#: rendering them all was most of the page's 50 ms of CPU; the rest are counted.
OPPONENTS = 50


def _by_opponent(session: Session, ids: list[int]) -> tuple[list[OpponentResult], int]:
    rows = session.execute(_BY_OPPONENT, {"ids": ids, "limit": OPPONENTS}).all()
    return [
        OpponentResult(bid, name, owner, n, int(a or 0), int(b or 0), int(t or 0))
        for bid, name, owner, n, a, b, t, _ in rows
    ], (rows[0][-1] if rows else 0)


def _f(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
