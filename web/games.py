"""Which games the site shows, with their display titles.

Titles come from the engines' specs; an engine that fails to import (or a game that only exists
in the database, like the test suite's toy game) still gets a page with a readable name, so one
broken engine never takes the website down.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
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


def known_games(session: Session) -> list[GameInfo]:
    """The hosted games plus any game that has bots in the database, in name order."""
    names = set(registry.game_names())
    names.update(session.scalars(select(Bot.game).distinct()).all())
    return [game_info(n) for n in sorted(names)]
