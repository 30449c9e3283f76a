"""Which games the site shows, with their display titles.

Titles come from the engines' specs; an engine that fails to import (or a game that only exists
in the database, like the test suite's toy game) still gets a page with a readable name, so one
broken engine never takes the website down.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import g, has_app_context
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from arena.db import Bot
from referee import registry


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    description: str = ""


def game_info(name: str) -> GameInfo:
    try:
        spec = registry.get_spec(name)
    except Exception:  # noqa: BLE001 - a broken or unknown engine must not break the page
        return GameInfo(name, name.replace("_", " ").title())
    return GameInfo(name, spec.title, spec.description)


def _distinct_games() -> Select:
    """The distinct ``bots.game`` values by a loose index scan (built once: composing the
    recursive statement cost more CPU than running it)."""
    found = select(func.min(Bot.game).label("game")).cte("found", recursive=True)
    after = select(func.min(Bot.game)).where(Bot.game > found.c.game).scalar_subquery()
    found = found.union_all(select(after).where(found.c.game.is_not(None)))
    return select(found.c.game)


_GAMES = _distinct_games()


def known_games(session: Session) -> list[GameInfo]:
    """The hosted games plus any game that has bots in the database, in name order.

    Every page asks (the navigation lists the games), so the distinct games are read with a
    loose index scan — one probe of ``ix_bots_game`` per game — rather than ``SELECT DISTINCT``
    over every bot (7 ms at 10,000 bots on a busy machine, twice a page), and the answer is
    kept for the rest of the request."""
    cached = g.get("_arena_known_games") if has_app_context() else None
    if cached is not None and cached[0] is session:
        return cached[1]
    names = set(registry.game_names())
    names.update(n for n in session.scalars(_GAMES).all() if n is not None)
    games = [game_info(n) for n in sorted(names)]
    if has_app_context():
        g._arena_known_games = (session, games)
    return games
