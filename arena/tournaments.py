"""Round-robin tournaments in the database, and leaderboards.

A tournament's matches are all created up front from :func:`arena.schedule.round_robin`, so
progress is simply finished/total (``tournaments.matches_done``/``matches_total``) and an
interrupted tournament resumes by playing whatever is still pending.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena import ratings, recording, schedule
from arena.db import session_scope
from arena.db.models import Bot, BotVersion, Rating, Tournament, TournamentEntry, utcnow
from referee import registry
from referee.rng import match_seed


def create_tournament(
    session: Session,
    game: str,
    version_ids: list[int],
    players: int,
    rounds: int = 1,
    variant: str | None = None,
    seed: int = 0,  # the schedule's (seating order); match seeds are secret
    decision_ms: int | None = None,
    bank_ms: int | None = None,
    sandbox: bool = True,
    name: str = "",
    live_comments: bool = False,
) -> Tournament:
    """Create the tournament with all its matches (pending). Flushes; the caller commits."""
    spec = registry.get_spec(game)
    variant = spec.check(players, variant)
    if len(set(version_ids)) != len(version_ids):
        raise schedule.ScheduleError("each bot version may enter a tournament once")
    tables = schedule.round_robin(len(version_ids), players, rounds, seed)
    tournament = Tournament(
        name=name or f"{game} round-robin",
        game=game,
        variant=variant,
        players=players,
        rounds=rounds,
        seed=seed,
        status="scheduled",
        matches_total=len(tables),
        matches_done=0,
        live_comments=live_comments,
    )
    session.add(tournament)
    session.flush()
    for pos, vid in enumerate(version_ids):
        session.add(TournamentEntry(tournament_id=tournament.id, bot_version_id=vid, position=pos))
    for table in tables:
        recording.create_match(
            session,
            game,
            variant,
            [version_ids[i] for i in table.seats],
            seed=match_seed(),
            kind="tournament",
            tournament_id=tournament.id,
            round_no=table.round,
            table_no=table.index,
            decision_ms=decision_ms,
            bank_ms=bank_ms,
            sandbox=sandbox,
        )
    session.flush()
    return tournament


def start(session: Session, tournament: Tournament) -> None:
    if tournament.status == "scheduled":
        tournament.status = "running"
        tournament.started_at = utcnow()


def start_if_scheduled(tournament_id: int) -> bool:
    """Move the tournament from ``scheduled`` to ``running`` in one conditional UPDATE (its own
    transaction). True only for the one caller that made the move, so the start message and
    the sweeper never both enqueue its matches."""
    with session_scope() as s:
        moved = s.execute(
            update(Tournament)
            .where(Tournament.id == tournament_id, Tournament.status == "scheduled")
            .values(status="running", started_at=utcnow())
            .execution_options(synchronize_session=False)
        ).rowcount
    return bool(moved)


@dataclass(frozen=True)
class LeaderRow:
    """One leaderboard line (sorted by ``conservative`` = mu − 3·sigma)."""

    place: int
    version_id: int
    label: str
    owner: str
    mu: float
    sigma: float
    conservative: float
    games: int
    distinct_opponents: int
    opponent_spread: float
    provisional: bool
    #: A house bot or automaton, an anchor of the scale (arena.ratings.is_anchored).
    house: bool = False
    #: ... and calibrated: its rating is fixed.
    anchored: bool = False


def leaderboard(session: Session, game: str, version_ids: list[int] | None = None) -> list[LeaderRow]:
    query = (
        select(Rating, BotVersion, Bot)
        .join(BotVersion, BotVersion.id == Rating.bot_version_id)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Rating.game == game)
    )
    if version_ids is not None:
        query = query.where(Rating.bot_version_id.in_(version_ids))
    rows = session.execute(query).all()
    rows.sort(key=lambda r: (-ratings.conservative(r[0].mu, r[0].sigma), r[1].id))
    return [
        LeaderRow(
            place=i + 1,
            version_id=version.id,
            label=f"{bot.name} v{version.number}",
            owner=bot.owner,
            mu=rating.mu,
            sigma=rating.sigma,
            conservative=ratings.conservative(rating.mu, rating.sigma),
            games=rating.games_played,
            distinct_opponents=rating.distinct_opponents,
            opponent_spread=rating.opponent_spread,
            provisional=rating.provisional,
            house=bot.owner == ratings.ANCHOR_OWNER,
            anchored=ratings.is_anchored(bot.owner, rating.sigma),
        )
        for i, (rating, version, bot) in enumerate(rows)
    ]


def format_leaderboard(rows: list[LeaderRow]) -> str:
    head = f"{'#':>3}  {'bot':<28} {'mu-3σ':>7} {'mu':>7} {'sigma':>6} {'games':>5} {'opp':>4}  "
    lines = [head.rstrip(), "-" * len(head.rstrip())]
    for r in rows:
        flag = " ".join(f for f in (
            "provisional" if r.provisional else "",
            ("anchor (fixed)" if r.anchored else "anchor (calibrating)") if r.house else "",
        ) if f)
        lines.append(
            f"{r.place:>3}  {r.label[:28]:<28} {r.conservative:>7.2f} {r.mu:>7.2f} {r.sigma:>6.2f} "
            f"{r.games:>5} {r.distinct_opponents:>4}  {flag}".rstrip()
        )
    return "\n".join(lines)
