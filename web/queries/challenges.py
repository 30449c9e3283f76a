"""A bot's challenges as its page lists them (:mod:`arena.play.challenges` makes them): either side,
newest first, each with the match's state and, once it is over, how it went for this bot."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, union_all
from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, Challenge, Match, MatchSeat


@dataclass(frozen=True)
class ChallengeRow:
    """One challenge as a bot page lists it, from that bot's side."""

    id: int
    created_at: datetime
    challenged: bool  # True: this bot was challenged; False: it challenged
    opponent_id: int
    opponent_name: str
    opponent_owner: str
    rated: bool
    match_id: str
    status: str
    outcome: str | None  # "won", "lost", "drew" for a finished match, else None


def of_bot(session: Session, bot_id: int, limit: int = 20) -> list[ChallengeRow]:
    """The bot's latest challenges, either side, newest first, with each match's outcome for
    this bot (a better rank than the opponent's: won).

    The ``limit`` newest are chosen from the challenges alone — the newest ``limit`` of each
    side, read backwards from its ``(bot, created_at)`` index — and only they are joined with
    their matches: joining first read every challenge the bot ever had and a random page of the
    match table for each (36 of 38 pages from disk for a bot with 33 challenges at 1,000,000
    matches), a cost that grows with the bot's challenges."""
    newest = (Challenge.created_at.desc(), Challenge.id.desc())
    sides = [
        select(Challenge.id, Challenge.created_at)
        .where(column == bot_id)
        .order_by(*newest)
        .limit(limit)
        .subquery()
        for column in (Challenge.challenger_bot_id, Challenge.opponent_bot_id)
    ]
    either = union_all(*(select(side.c.id, side.c.created_at) for side in sides)).subquery()
    latest = (
        select(either.c.id).order_by(either.c.created_at.desc(), either.c.id.desc()).limit(limit)
    )
    rows = session.execute(
        select(Challenge, Match.status, Match.rated)
        .join(Match, Match.id == Challenge.match_id)
        .where(Challenge.id.in_(latest.scalar_subquery()))
        .order_by(*newest)
    ).all()
    if not rows:
        return []
    other_ids = {
        c.opponent_bot_id if c.challenger_bot_id == bot_id else c.challenger_bot_id
        for c, _, _ in rows
    }
    bots = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(other_ids | {bot_id})))}
    done = [c.match_id for c, status, _ in rows if status == "done"]
    ranks: dict[tuple[str, int], int | None] = {}
    if done:
        for match_id, owner_bot, rank in session.execute(
            select(MatchSeat.match_id, BotVersion.bot_id, MatchSeat.rank)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .where(MatchSeat.match_id.in_(done))
        ):
            ranks[(match_id, owner_bot)] = rank
    out = []
    for c, status, rated in rows:
        challenged = c.opponent_bot_id == bot_id
        other = bots[c.challenger_bot_id if challenged else c.opponent_bot_id]
        outcome = None
        mine, theirs = ranks.get((c.match_id, bot_id)), ranks.get((c.match_id, other.id))
        if status == "done" and mine is not None and theirs is not None:
            outcome = "won" if mine < theirs else "lost" if mine > theirs else "drew"
        out.append(
            ChallengeRow(
                c.id,
                c.created_at,
                challenged,
                other.id,
                other.name,
                other.owner,
                rated,
                c.match_id,
                status,
                outcome,
            )
        )
    return out


@dataclass(frozen=True)
class Challenger:
    """One of the signed-in author's bots that may challenge the bot on the page."""

    id: int
    name: str


def challengers(session: Session, owner: str, game: str) -> list[Challenger]:
    """``owner``'s active bots of ``game``, by name: the choices of the bot page's Challenge
    form (arena.play.challenges still checks each when the form is sent)."""
    rows = session.execute(
        select(Bot.id, Bot.name)
        .where(Bot.owner == owner, Bot.game == game, Bot.active.is_(True))
        .order_by(Bot.name, Bot.id)
    ).all()
    return [Challenger(bot_id, name) for bot_id, name in rows]
