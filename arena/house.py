"""House bots: the random, greedy and search sample bots, owned by the system user ``house``,
registered on every ladder so each game's rating scale has fixed reference points.

A house bot's source never changes (the sample bot folders of the installed package), so its
rating settles over many ladder games and the leaderboard can say where every other bot stands
against "random", "greedy" and "ismcts". The search bot runs at its fixed default budget (its
share of the decision clock). :func:`ensure_house_bots` is idempotent: registering the same
folder again returns the existing version (same content digest), so it is called on every
ladder tick.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena import builtin_bots

HOUSE_OWNER = "house"


def house_sources(game: str) -> dict[str, str]:
    """{bot name: folder} of the house bots of ``game`` (greedy only where a game has one)."""
    out = {}
    for name in builtin_bots.NAMES:
        try:
            out[f"house-{name}"] = builtin_bots.resolve(name, game)
        except builtin_bots.UnknownBuiltin:
            continue
    return out


def ensure_house_bots(session: Session, game: str) -> list[int]:
    """Register (once) and activate the house bots of ``game``; returns their version ids."""
    from arena.bots import register_version

    ids = []
    for name, source in house_sources(game).items():
        version = register_version(session, game, source, name=name, owner=HOUSE_OWNER)
        version.bot.active = True
        ids.append(version.id)
    return ids
