"""Registering bots and their versions.

A bot is (owner, name, game); every upload with different content is a new version. A new
version starts from its predecessor's *current* mu with sigma reset to the starting sigma: the
code is probably about as strong as before, but we are no longer sure, so it is provisional
again and the ladder plays it first (highest sigma). The starting point is stored on the
version (``initial_mu``/``initial_sigma``) so a rebuild from history reproduces it exactly.
A house bot (owner ``house``) with a calibration starts at it instead and is held there
(:func:`arena.evaluation.ratings.anchor_skill`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.db.models import Bot, BotVersion, Rating
from arena.evaluation import ratings
from arena.intake import freeze
from referee import dialin_client, registry
from referee.engine import ConfigError
from referee.manifest import has_entry
from referee.runtime import RuntimeMissing, check_requirements

#: A remote bot: ``host:port`` (plaintext) or ``tls://host:port`` (see referee.bot_client.dial).
_REMOTE = re.compile(r"(?:tls://)?(?:[\w.\-]+|\[[0-9a-fA-F:]+\]):\d+")  # fullmatch, not ^…$


class BotError(ConfigError):
    """A bot that cannot be registered (missing bot.py, unknown game …)."""


def source_digest(source: str) -> tuple[str, str]:
    """(kind, digest) of a bot source: a folder with ``bot.py`` or a ``host:port`` address."""
    path = Path(source)
    if path.is_dir():
        if not has_entry(path):
            raise BotError(f"{source}: a hosted bot is a folder containing bot.py (or a bot.json manifest); none found")
        try:
            check_requirements(path)
        except RuntimeMissing as exc:
            raise BotError(str(exc)) from None
        h = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            if "__pycache__" in file.parts or file.suffix == ".pyc":
                continue
            h.update(str(file.relative_to(path)).encode())
            h.update(b"\0")
            h.update(file.read_bytes())
        return "hosted", h.hexdigest()
    if _REMOTE.fullmatch(source) or dialin_client.is_source(source):
        return "remote", hashlib.sha256(source.encode()).hexdigest()
    raise BotError(f"{source}: not a bot folder (with bot.py) nor a host:port (or tls://host:port) address")


def register_version(
    session: Session, game: str, source: str, name: str | None = None, owner: str = "local"
) -> BotVersion:
    """The version of bot ``name`` for ``source``: the latest one if the content is unchanged,
    else a new version (inheriting the predecessor's mu). Also creates its rating row."""
    registry.get_spec(game)  # unknown game -> ConfigError with the list of games
    kind, digest = source_digest(source)
    if kind == "hosted":
        source = str(Path(source).resolve())
    name = name or (Path(source).name if kind == "hosted" else source)
    bot = session.scalar(
        select(Bot).where(Bot.owner == owner, Bot.name == name, Bot.game == game)
    )
    if bot is None:
        bot = Bot(owner=owner, name=name, game=game, active=True)
        session.add(bot)
        session.flush()
    latest = bot.latest_version
    if latest is not None and latest.digest == digest and latest.source == source:
        return latest
    if latest is not None:  # a new version of an entered bot after its season's deadline: refused
        freeze.check_upload(session, bot.id, name)
    start = ratings.initial_skill()
    calibrated = ratings.anchor_skill(game, name) if owner == ratings.ANCHOR_OWNER else None
    if calibrated is not None:  # a house bot: its documented calibration, held from game one
        start = calibrated
    elif latest is not None:
        prev = session.get(Rating, (latest.id, game))
        if prev is not None:
            start = ratings.Skill(prev.mu, ratings.SIGMA0)
    version = BotVersion(
        bot=bot,
        number=(latest.number + 1) if latest else 1,
        kind=kind,
        source=source,
        digest=digest,
        initial_mu=start.mu,
        initial_sigma=start.sigma,
        predecessor_id=latest.id if latest else None,
    )
    session.add(version)
    session.flush()
    session.add(
        Rating(
            bot_version_id=version.id,
            game=game,
            mu=start.mu,
            sigma=start.sigma,
            provisional=ratings.is_provisional(start.sigma),
            games_played=0,
            distinct_opponents=0,
            opponent_counts={},
            seat_counts={},
            player_counts={},
        )
    )
    session.flush()
    return version


def latest_versions(session: Session, game: str, active_only: bool = True) -> list[BotVersion]:
    """The playing version of every (active) bot of ``game`` — the ladder's population: the
    newest version not held back by an SPRT (:attr:`Bot.playing_version`)."""
    query = select(Bot).where(Bot.game == game)
    if active_only:
        query = query.where(Bot.active.is_(True))
    bots = session.scalars(query.order_by(Bot.id)).all()
    # A solo automaton (arena.intake.house) is rated but never takes a seat; nor is a person's seat
    # (arena.play.human) ever scheduled.
    return [b.playing_version for b in bots
            if b.playing_version is not None and b.playing_version.kind not in ("automaton", "human")]
