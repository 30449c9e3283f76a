"""Which finished matches go into a training dataset, read from the database in pages.

Why a module of its own: ``arena export dataset`` (:mod:`arena.cli.export`) must stream an
archive of any size with bounded memory, in an order that never changes (so a re-run can skip
what an earlier run wrote), and must leave out every match a bot of an opted-out author sat in
(``users.dataset_opt_out``). This module answers those questions and nothing else: the rows
themselves are built by replaying each record (:mod:`arena.envs.decisions`).

The order is ``(finished_at, id)``, read by keyset pages: a page costs the same at the first
match and at the millionth, and a match finished while an export runs sorts after the ones
already read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.orm import Session

from arena.db.accounts import User
from arena.db.models import Bot, BotVersion, Match, MatchSeat

#: Matches read per database page: a page's records are held at once (≈ 30-50 KB of JSON each,
#: several times that as Python objects).
PAGE = 50
#: Where a match without ``finished_at`` (none the platform writes) sorts: first.
_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Filters:
    """What an export selects; every field empty or None selects everything."""

    games: tuple[str, ...] = ()
    players: int | None = None
    variant: str | None = None
    bots: tuple[str, ...] = ()  # bot names: the match has a seat of one of them
    min_rating: float | None = None  # every seat's mu before the match at least this
    max_rating: float | None = None  # every seat's mu before the match at most this
    since: datetime | None = None  # finished at or after
    until: datetime | None = None  # finished before
    tournaments: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON data naming the selection: a re-run into the same folder must select the same."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.isoformat() if isinstance(value, datetime) else (
                list(value) if isinstance(value, tuple) else value)
        return out


@dataclass(frozen=True)
class SeatInfo:
    """One seat of a selected match as the database has it."""

    seat: int
    bot: str
    owner: str
    version: int
    version_id: int
    #: TrueSkill mu and sigma of the seat's bot version *before* this match (``match_seats.
    #: mu_before``/``sigma_before``): None for a match that was not rated.
    mu: float | None
    sigma: float | None
    rank: int | None
    score: float | None
    forfeit: str | None


@dataclass(frozen=True)
class Selected:
    """One selected finished match with its stored record."""

    id: str
    game: str
    variant: str
    players: int
    tournament_id: int | None
    finished_at: datetime | None
    #: The stored JSON, or None when the record is stored compactly (``record_compact``): read
    #: it through :func:`arena.records.stored.record_of`, which regenerates that one.
    record: dict[str, Any] | None
    seats: list[SeatInfo] = field(default_factory=list)
    record_compact: bytes | None = None


def _opted_out_seat() -> Any:
    """A seat of the match whose bot belongs to an opted-out account."""
    return exists(
        select(MatchSeat.match_id)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(User, User.name == Bot.owner)
        .where(MatchSeat.match_id == Match.id, User.dataset_opt_out.is_(True))
    )


def _conditions(f: Filters) -> list[Any]:
    conds: list[Any] = [Match.status == "done", or_(Match.record.is_not(None), Match.record_compact.is_not(None)),
                        ~_opted_out_seat()]
    if f.games:
        conds.append(Match.game.in_(f.games))
    if f.players is not None:
        conds.append(Match.players == f.players)
    if f.variant is not None:
        conds.append(Match.variant == f.variant)
    if f.tournaments:
        conds.append(Match.tournament_id.in_(f.tournaments))
    if f.since is not None:
        conds.append(Match.finished_at >= f.since)
    if f.until is not None:
        conds.append(Match.finished_at < f.until)
    if f.bots:
        conds.append(exists(
            select(MatchSeat.match_id)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(MatchSeat.match_id == Match.id, Bot.name.in_(f.bots))
        ))
    if f.min_rating is not None or f.max_rating is not None:
        outside = [MatchSeat.mu_before.is_(None)]
        if f.min_rating is not None:
            outside.append(MatchSeat.mu_before < f.min_rating)
        if f.max_rating is not None:
            outside.append(MatchSeat.mu_before > f.max_rating)
        conds.append(~exists(select(MatchSeat.match_id).where(MatchSeat.match_id == Match.id, or_(*outside))))
    return conds


def count(session: Session, f: Filters) -> int:
    """How many matches ``f`` selects (for the progress line)."""
    return int(session.scalar(select(func.count()).select_from(Match).where(*_conditions(f))) or 0)


def matches(session: Session, f: Filters, page: int = PAGE) -> Iterator[Selected]:
    """Every match ``f`` selects, in ``(finished_at, id)`` order, ``page`` records at a time."""
    conds = _conditions(f)
    when = func.coalesce(Match.finished_at, _EPOCH)
    after: tuple[datetime, str] | None = None
    while True:
        stmt = select(Match.id, Match.game, Match.variant, Match.players, Match.tournament_id,
                      Match.finished_at, Match.record, Match.record_compact).where(*conds)
        if after is not None:
            stmt = stmt.where(or_(when > after[0], and_(when == after[0], Match.id > after[1])))
        rows = session.execute(stmt.order_by(when, Match.id).limit(page)).all()
        if not rows:
            return
        seats = _seats(session, [r.id for r in rows])
        for r in rows:
            yield Selected(r.id, r.game, r.variant, r.players, r.tournament_id, r.finished_at,
                           r.record, seats.get(r.id, []), r.record_compact)
        after = (rows[-1].finished_at or _EPOCH, rows[-1].id)
        session.expunge_all()


def _seats(session: Session, ids: list[str]) -> dict[str, list[SeatInfo]]:
    stmt = (
        select(MatchSeat.match_id, MatchSeat.seat, Bot.name, Bot.owner, BotVersion.number, BotVersion.id,
               MatchSeat.mu_before, MatchSeat.sigma_before, MatchSeat.rank, MatchSeat.score,
               MatchSeat.forfeit)
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(MatchSeat.match_id.in_(ids))
        .order_by(MatchSeat.match_id, MatchSeat.seat)
    )
    out: dict[str, list[SeatInfo]] = {}
    for r in session.execute(stmt):
        out.setdefault(r[0], []).append(SeatInfo(*r[1:]))
    return out


def set_opt_out(session: Session, account: str, opted_out: bool) -> bool:
    """Set ``account``'s dataset opt-out; False when there is no such account."""
    user = session.scalar(select(User).where(User.name == account))
    if user is None:
        return False
    user.dataset_opt_out = opted_out
    session.commit()
    return True
