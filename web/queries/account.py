"""What a signed-in author's own pages read: their bots, each bot's uploads (with the
qualification verdict and the crash log a refused upload left), its SPRT runs, and one match as
their bot saw it (its faults with the bot's stderr tail, its time and CPU totals).

These are the only queries of the site that return bots' logs (``log_tail``): the views in
:mod:`web.my_pages` call them only after checking the bot belongs to the signed-in user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating
from arena.db.accounts import Submission
from arena.db.models import SprtTest
from arena.records import stored
from referee.faults import canonical


@dataclass(frozen=True)
class MyBot:
    id: int
    name: str
    game: str
    active: bool
    versions: int
    newest: int | None
    #: The version on the ladder (the newest not held back by an SPRT) and its rating.
    current: int | None
    conservative: float | None
    provisional: bool
    games: int
    #: The newest upload's state: qualifying | qualified | refused (None: no upload recorded,
    #: e.g. a bot made by an operator's command).
    latest_status: str | None
    running_sprt: bool


def my_bots(session: Session, owner: str) -> list[MyBot]:
    """Every bot ``owner`` has, by game then name (four queries, whatever the count)."""
    bots = session.execute(
        select(Bot.id, Bot.name, Bot.game, Bot.active)
        .where(Bot.owner == owner)
        .order_by(Bot.game, Bot.name, Bot.id)
    ).all()
    if not bots:
        return []
    ids = [b[0] for b in bots]
    versions: dict[int, list[tuple[int, int, bool]]] = {}
    for bot_id, vid, number, held in session.execute(
        select(BotVersion.bot_id, BotVersion.id, BotVersion.number, BotVersion.held)
        .where(BotVersion.bot_id.in_(ids))
        .order_by(BotVersion.number)
    ):
        versions.setdefault(bot_id, []).append((vid, number, held))
    current = {b: next((v for v in reversed(vs) if not v[2]), None) for b, vs in versions.items()}
    game_of = {b[0]: b[2] for b in bots}
    #: current version id -> its bot's game (a rating row is per version and game)
    rated_game = {c[0]: game_of[b] for b, c in current.items() if c is not None}
    ratings = {
        vid: (mu - 3 * sigma, provisional, played)
        for vid, game, mu, sigma, provisional, played in session.execute(
            select(
                Rating.bot_version_id,
                Rating.game,
                Rating.mu,
                Rating.sigma,
                Rating.provisional,
                Rating.games_played,
            ).where(Rating.bot_version_id.in_(list(rated_game)))
        )
        if rated_game.get(vid) == game
    }
    latest: dict[int, str] = {}
    newest_sub = (
        select(Submission.bot_id, func.max(Submission.number).label("n"))
        .where(Submission.bot_id.in_(ids))
        .group_by(Submission.bot_id)
        .subquery()
    )
    for bot_id, status in session.execute(
        select(Submission.bot_id, Submission.status).join(
            newest_sub,
            (newest_sub.c.bot_id == Submission.bot_id) & (newest_sub.c.n == Submission.number),
        )
    ):
        latest[bot_id] = status
    running = set(
        session.scalars(
            select(SprtTest.bot_id).where(SprtTest.bot_id.in_(ids), SprtTest.status == "running")
        )
    )
    out = []
    for bot_id, name, game, active in bots:
        vs = versions.get(bot_id, [])
        cur = current.get(bot_id)
        rating = ratings.get(cur[0]) if cur else None
        out.append(
            MyBot(
                id=bot_id,
                name=name,
                game=game,
                active=active,
                versions=len(vs),
                newest=vs[-1][1] if vs else None,
                current=cur[1] if cur else None,
                conservative=rating[0] if rating else None,
                provisional=rating[1] if rating else True,
                games=rating[2] if rating else 0,
                latest_status=latest.get(bot_id),
                running_sprt=bot_id in running,
            )
        )
    return out


@dataclass(frozen=True)
class Upload:
    """One upload of a bot and its qualification verdict."""

    number: int
    kind: str
    digest: str
    status: str
    refusal_kind: str | None
    refusal_message: str | None
    #: The tail of the bot's stderr from its qualification match (private to the owner).
    log_tail: str | None
    match_id: str | None
    created_at: datetime | None
    finished_at: datetime | None


def uploads(session: Session, bot_id: int) -> list[Upload]:
    """The bot's uploads, newest first."""
    return [
        Upload(
            s.number,
            s.kind,
            s.digest,
            s.status,
            s.refusal_kind,
            s.refusal_message,
            s.log_tail,
            s.match_id,
            s.created_at,
            s.finished_at,
        )
        for s in session.scalars(
            select(Submission).where(Submission.bot_id == bot_id).order_by(Submission.number.desc())
        )
    ]


@dataclass(frozen=True)
class SprtRun:
    candidate: int
    baseline: int
    status: str
    replaced: bool
    replace: str
    llr: float
    lower: float
    upper: float
    elo0: float
    elo1: float
    games: int
    pairs: int
    max_pairs: int
    score: float
    elo: float
    elo_error: float
    pentanomial: list
    house: bool
    #: Why it ended as it did (the runner's own words), or what it waits for.
    message: str
    created_at: datetime | None
    finished_at: datetime | None


def sprt_runs(session: Session, bot_id: int) -> list[SprtRun]:
    """Every SPRT of the bot's versions, newest first, with the runner's message."""
    number = dict(
        session.execute(
            select(BotVersion.id, BotVersion.number).where(BotVersion.bot_id == bot_id)
        ).all()
    )
    return [
        SprtRun(
            number.get(t.candidate_version_id, 0),
            number.get(t.baseline_version_id, 0),
            t.status,
            t.replaced,
            t.replace,
            t.llr,
            t.lower,
            t.upper,
            t.elo0,
            t.elo1,
            t.games,
            t.pairs,
            t.max_pairs,
            t.score,
            t.elo,
            t.elo_error,
            list(t.pentanomial or []),
            t.house,
            t.message or "",
            t.created_at,
            t.finished_at,
        )
        for t in session.scalars(
            select(SprtTest).where(SprtTest.bot_id == bot_id).order_by(SprtTest.id.desc())
        )
    ]


@dataclass(frozen=True)
class MySeat:
    """One seat the owner's bot held in a match, as only its owner may see it."""

    seat: int
    version: int
    rank: int | None
    score: float | None
    #: The fault that ended its game (standard reason words), or None.
    reason: str | None
    message: str
    #: Decisions made when it faulted.
    fault_decision: int | None
    #: The tail of the bot's own stderr the referee kept with the fault (private).
    log_tail: str
    decisions: int
    time_used_ms: float | None
    bank_left_ms: float | None
    cpu_ms: float | None
    ready_ms: float | None
    start_ms: float | None
    #: The bot's comments, by decision number (public too, gathered here for the author).
    comments: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class MyMatch:
    id: str
    game: str
    variant: str
    players: int
    kind: str
    status: str
    created_at: datetime | None
    finished_at: datetime | None
    error: str | None
    seats: list[MySeat]
    opponents: list[tuple[int, str, str]]  # (seat, bot name, owner)


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def my_match(session: Session, bot_id: int, match_id: str) -> MyMatch | None:
    """``match_id`` as bot ``bot_id`` saw it, with its logs; None when it did not play there."""
    m = session.get(Match, match_id)
    if m is None:
        return None
    seats = session.execute(
        select(
            MatchSeat.seat,
            MatchSeat.rank,
            MatchSeat.score,
            MatchSeat.forfeit,
            BotVersion.number,
            Bot.id,
            Bot.name,
            Bot.owner,
        )
        .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(MatchSeat.match_id == match_id)
        .order_by(MatchSeat.seat)
    ).all()
    mine = [s for s in seats if s[5] == bot_id]
    if not mine:
        return None
    try:
        data = stored.record_data(m)
    except stored.RecordUnavailable:
        data = None  # the page still shows the seats' results; the record's refusal is on its page
    record = data if isinstance(data, dict) else {}
    forfeits = {
        f.get("seat"): f for f in record.get("forfeits") or m.forfeits or [] if isinstance(f, dict)
    }
    totals = {t.get("seat"): t for t in record.get("totals") or [] if isinstance(t, dict)}
    decisions = [d for d in record.get("decisions") or [] if isinstance(d, dict)]
    out = []
    for seat, rank, score, forfeit, version, *_ in mine:
        f = forfeits.get(seat) or {}
        t = totals.get(seat) or {}
        reason = f.get("reason") or forfeit
        out.append(
            MySeat(
                seat=seat,
                version=version,
                rank=rank,
                score=score,
                reason=(canonical(str(reason)) or str(reason)) if reason else None,
                message=str(f.get("message") or ""),
                fault_decision=f.get("decision") if isinstance(f.get("decision"), int) else None,
                log_tail=str(f.get("log_tail") or ""),
                decisions=int(t.get("decisions") or 0),
                time_used_ms=_float(t.get("time_used_ms")),
                bank_left_ms=_float(t.get("bank_left_ms")),
                cpu_ms=_float(t.get("cpu_ms")),
                ready_ms=_float(t.get("ready_ms")),
                start_ms=_float(t.get("start_ms")),
                comments=[
                    (int(d.get("n") or 0), str(d["comment"]))
                    for d in decisions
                    if d.get("seat") == seat and d.get("comment")
                ],
            )
        )
    return MyMatch(
        id=m.id,
        game=m.game,
        variant=m.variant,
        players=m.players,
        kind=m.kind,
        status=m.status,
        created_at=m.created_at,
        finished_at=m.finished_at,
        error=m.error,
        seats=out,
        opponents=[(s[0], s[6], s[7]) for s in seats if s[5] != bot_id],
    )
