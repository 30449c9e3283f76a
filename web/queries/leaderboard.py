"""The per-game leaderboard: each bot's current version, ordered by mu − 3·sigma.

Ratings come straight from ``ratings``. The win counts need an aggregate over every seat the
game's bots ever took (hundreds of thousands of rows with a large history), which is too slow to
run per page view; they only change when a match of that game is rated, and every rating
update bumps ``rating_locks.last_seq`` for the game — so the aggregate is kept per game and
brought up to date with just the matches rated since (see :class:`WinCache`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, RatingLock
from arena.evaluation import ratings


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    bot_id: int
    bot_name: str
    owner: str
    active: bool
    version: int
    version_id: int
    mu: float
    sigma: float
    conservative: float
    provisional: bool
    matches: int
    wins: int
    win_share: float | None
    last_match: datetime | None
    #: A house bot or solo automaton: an anchor of the scale (arena.evaluation.ratings).
    house: bool = False
    #: An anchor that is calibrated: its rating is fixed (while False it still calibrates).
    anchored: bool = False


@dataclass(frozen=True)
class SeatTotals:
    matches: int
    wins: int


class WinCache:
    """Per-game ``{version_id: SeatTotals}`` as of a rating sequence number.

    When the game's sequence has moved since the last page view, only the matches rated in
    between are read (through the unique index on ``(game, rating_seq)``) and added: a live
    ladder that rates a match every few seconds costs each leaderboard view a handful of rows,
    not a pass over the whole history. Every read is bounded by the sequence number it is filed
    under, so a match rated while the aggregate runs is counted exactly once.
    """

    def __init__(self) -> None:
        self._data: dict[str, tuple[int, dict[int, SeatTotals]]] = {}
        self._lock = threading.Lock()

    def get(self, session: Session, game: str) -> dict[int, SeatTotals]:
        seq = session.scalar(select(RatingLock.last_seq).where(RatingLock.game == game))
        if seq is None:  # nothing of this game was ever rated
            return _seat_totals(session, game, None, None)
        with self._lock:
            hit = self._data.get(game)
        if hit is not None and hit[0] == seq:
            return hit[1]
        if hit is not None and hit[0] < seq:
            totals = dict(hit[1])
            for vid, t in _seat_totals(session, game, hit[0], seq).items():
                old = totals.get(vid, SeatTotals(0, 0))
                totals[vid] = SeatTotals(old.matches + t.matches, old.wins + t.wins)
        else:
            totals = _seat_totals(session, game, None, seq)
        with self._lock:
            current = self._data.get(game)
            if current is None or current[0] < seq:
                self._data[game] = (seq, totals)
        return totals


def _seat_totals(
    session: Session, game: str, after: int | None, upto: int | None
) -> dict[int, SeatTotals]:
    """Ranked seats and wins per version, for matches rated in ``(after, upto]`` (a match
    recorded but not rated — no seat played it — counts for no one)."""
    query = (
        select(
            MatchSeat.bot_version_id,
            func.count(MatchSeat.rank),
            func.sum(case((MatchSeat.rank == 1, 1), else_=0)),
        )
        .join(Match, Match.id == MatchSeat.match_id)
        .where(Match.game == game, MatchSeat.rank.is_not(None), Match.rating_seq.is_not(None))
        .group_by(MatchSeat.bot_version_id)
    )
    if after is not None:
        query = query.where(Match.rating_seq > after)
    if upto is not None:
        query = query.where(Match.rating_seq <= upto)
    rows = session.execute(query).all()
    return {vid: SeatTotals(int(n or 0), int(w or 0)) for vid, n, w in rows}


def leaderboard(
    session: Session, game: str, wins: WinCache | None, limit: int | None = None
) -> list[LeaderRow]:
    """The game's bots, best first; ``wins=None`` skips the win counts (home page teasers)."""
    latest = (
        select(BotVersion.bot_id, func.max(BotVersion.number).label("number"))
        .where(BotVersion.held.is_(False))  # a version held by its SPRT is not on the ladder
        .group_by(BotVersion.bot_id)
        .subquery()
    )
    mu = func.coalesce(Rating.mu, BotVersion.initial_mu)
    sigma = func.coalesce(Rating.sigma, BotVersion.initial_sigma)
    query = (
        select(
            Bot.id,
            Bot.name,
            Bot.owner,
            Bot.active,
            BotVersion.number,
            BotVersion.id,
            mu,
            sigma,
            Rating.provisional,
            Rating.games_played,
            Rating.updated_at,
        )
        .join(latest, latest.c.bot_id == Bot.id)
        .join(
            BotVersion,
            (BotVersion.bot_id == Bot.id) & (BotVersion.number == latest.c.number),
        )
        .outerjoin(Rating, (Rating.bot_version_id == BotVersion.id) & (Rating.game == Bot.game))
        .where(Bot.game == game, BotVersion.kind != "human")  # a person's seat is never rated
        .order_by((mu - 3 * sigma).desc(), Bot.name)
    )
    if limit is not None:
        query = query.limit(limit)
    totals = wins.get(session, game) if wins is not None else {}
    out: list[LeaderRow] = []
    for i, (bid, name, owner, active, number, vid, m, s, prov, played, updated) in enumerate(
        session.execute(query).all()
    ):
        t = totals.get(vid)
        played = int(played or 0)
        matches = t.matches if t else played
        out.append(
            LeaderRow(
                rank=i + 1,
                bot_id=bid,
                bot_name=name,
                owner=owner,
                active=bool(active),
                version=number,
                version_id=vid,
                mu=float(m),
                sigma=float(s),
                conservative=float(m) - 3 * float(s),
                provisional=True if prov is None else bool(prov),
                matches=matches,
                wins=t.wins if t else 0,
                win_share=(t.wins / t.matches) if t and t.matches else None,
                last_match=updated if played else None,
                house=owner == ratings.ANCHOR_OWNER,
                anchored=ratings.is_anchored(owner, float(s)),
            )
        )
    return out


def board_token(session: Session, game: str) -> tuple:
    """Everything a leaderboard page shows that can move: the game's rating sequence (every
    rated match bumps it), the newest version id (every new version), and the count and id sum
    of the game's active bots (deactivation, reactivation) — one statement, a few ms at
    10,000 bots, against hundreds of ms to rebuild and render the page."""
    active = select(func.count(Bot.id), func.coalesce(func.sum(Bot.id), 0)).where(
        Bot.game == game, Bot.active.is_(True)).subquery()
    return tuple(
        session.execute(
            select(
                select(RatingLock.last_seq).where(RatingLock.game == game).scalar_subquery(),
                select(func.max(BotVersion.id)).scalar_subquery(),
                active,
            )
        ).one()
    )


class PageCache:
    """Rendered leaderboard pages per game, reused while :func:`board_token` stands (and for at
    most ``max_age`` seconds, a safety net). With 5,000 bots a game the page is ~1 MB of HTML:
    rendering it costs far more than the 50 ms a page may take, while it changes only when a
    match is rated or a bot added, deactivated or reactivated."""

    def __init__(self, max_age: float = 600.0) -> None:
        self.max_age = max_age
        self._pages: dict[str, tuple[tuple, float, str]] = {}
        self._lock = threading.Lock()

    def get(self, game: str, token: tuple, render: Callable[[], str]) -> str:
        now = time.monotonic()
        hit = self._pages.get(game)
        if hit is not None and hit[0] == token and now - hit[1] < self.max_age:
            return hit[2]
        page = render()
        with self._lock:
            self._pages[game] = (token, now, page)
        return page
