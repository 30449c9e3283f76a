"""House bots: the random, greedy and search sample bots, owned by the system user ``house``,
registered on every ladder so each game's rating scale has fixed reference points: anchors.

A house bot's source never changes (the sample bot folders of the installed package), so its
rating is set from its calibration (:func:`arena.evaluation.ratings.anchor_skill`, ``anchors.json``) and held
there; a house bot with no calibration is rated over its first ladder games and then fixed (:func:`arena.evaluation.ratings.is_anchored`:
from sigma <= ``CALIBRATED_SIGMA`` on, matches move only the other seats), and the leaderboard can
say where every other bot stands against "random", "greedy" and "ismcts" — the same next month. The search bot runs at its fixed default budget (its
share of the decision clock). :func:`ensure_house_bots` is idempotent: registering the same
folder again returns the existing version (same content digest), so it is called on every
ladder tick.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from arena.intake import house_bots as builtin_bots

HOUSE_OWNER = "house"


def house_sources(game: str) -> dict[str, str]:
    """{bot name: folder} of the house bots of ``game`` (greedy and learned only where a game
    has one; learned only where this server's bot runtime has the packages it declares — the
    ``learned`` extra, referee/runtime.py — so a server without them keeps the other house bots
    on the ladder instead of failing to register)."""
    from referee.runtime import RuntimeMissing, check_requirements

    out = {}
    for name in builtin_bots.NAMES:
        try:
            folder = builtin_bots.resolve(name, game)
            check_requirements(Path(folder))
        except (builtin_bots.UnknownBuiltin, RuntimeMissing):
            continue
        out[f"house-{name}"] = folder
    return out


def set_house_bots_active(session: Session, game: str, active: bool) -> int:
    """Put the house bots of ``game`` on (``True``: registered first if needed) or off the
    ladder; their ratings stay. Returns how many are active now. Automata are not touched."""
    if active:
        return len(ensure_house_bots(session, game))
    from sqlalchemy import select

    from arena.db.models import Bot

    for bot in session.scalars(select(Bot).where(
            Bot.owner == HOUSE_OWNER, Bot.game == game, Bot.name.in_(list(house_sources(game))))):
        bot.active = False
    session.flush()
    return 0


def active_house_bots(session: Session, game: str) -> int:
    """How many house bots (not automata) of ``game`` are active, i.e. play on its ladder."""
    from sqlalchemy import func, select

    from arena.db.models import Bot

    return session.scalar(select(func.count()).select_from(Bot).where(
        Bot.owner == HOUSE_OWNER, Bot.game == game, Bot.active.is_(True),
        Bot.name.in_(list(house_sources(game))))) or 0


def ensure_house_bots(session: Session, game: str) -> list[int]:
    """Register (once) and activate the house bots of ``game``; returns their version ids."""
    from arena.intake.bots import register_version

    ids = []
    for name, source in house_sources(game).items():
        version = register_version(session, game, source, name=name, owner=HOUSE_OWNER)
        version.bot.active = True
        ids.append(version.id)
    return ids


# --- solo automata as rated pseudo-players ----------------------------------------------------
#
# A solo game (Black Angel against Hal, Solenia against the virtual player, Orbital against its
# bot players or the 22 VP goal) and Orbital's multiplayer variants with bot players have an
# opponent that no bot plays: the engine does. Each such opponent, per variant (Hal at 10 VP is
# not Hal at 0 VP), is a pseudo-player: a bot of the ``house`` owner with one version of kind
# :data:`AUTOMATON_KIND`, rated in the game's TrueSkill table like any bot, so a bot's solo
# games move its rating and the automata are anchors of the scale like the house bots (fixed once
# calibrated: arena.evaluation.ratings.is_anchored). It never
# holds a seat: :func:`arena.intake.bots.latest_versions` (ladders, tournaments of all bots) leaves it
# out and a tournament that names it is refused (arena.server.tournaments).

AUTOMATON_KIND = "automaton"
AUTOMATON_PREFIX = "automaton:"


def automaton_name(game: str, variant: str, players: int) -> str | None:
    """The pseudo-player a ``players``-seat match of ``game`` in ``variant`` is rated against,
    or None when the engine plays no opponent.

    Black Angel: ``hal-5`` (variant ``solo``), ``hal-0``/``hal-10``/``hal-15`` (``solo-dN``),
    ``-advanced`` appended with the advanced rules. Solenia: ``virtual-player-<variant>``.
    Orbital: ``bot-players`` (competitive solo: the best of the two bot players), ``goal-22vp``
    (peaceful solo: the 22 VP bar — rated, see docs/tournaments-and-ratings.md), and
    ``bot-players-N-with-P`` for the ``bots-N`` variants (the best bot player among P seats).
    Any other game whose solo result names an automaton: ``automaton-<variant>``.
    """
    if game == "black_angel":
        if players != 1 or not variant.startswith("solo"):
            return None
        parts = variant.split("-")[1:]
        difficulty = next((p[1:] for p in parts if p.startswith("d") and p[1:].isdigit()), "5")
        return f"hal-{difficulty}" + ("-advanced" if "advanced" in parts else "")
    if game == "solenia":
        return f"virtual-player-{variant}" if players == 1 else None
    if game == "orbital":
        if players == 1:
            return "goal-22vp" if variant == "peaceful" else "bot-players"
        if variant.startswith("bots-"):
            return f"bot-players-{variant.removeprefix('bots-')}-with-{players}"
        return None
    return f"automaton-{variant}" if players == 1 else None


def is_automaton_source(source: str) -> bool:
    return source.startswith(AUTOMATON_PREFIX)


def ensure_automaton(session: Session, game: str, name: str) -> int:
    """The version id of automaton ``name`` of ``game``, created (with its rating row) on first
    use. Its source ``automaton:<game>:<name>`` is never run."""
    import hashlib

    from sqlalchemy import select

    from arena.db.models import Bot, BotVersion, Rating
    from arena.evaluation import ratings

    bot = session.scalar(select(Bot).where(Bot.owner == HOUSE_OWNER, Bot.name == name, Bot.game == game))
    if bot is not None:
        found = next((v for v in bot.versions if v.kind == AUTOMATON_KIND), None)
        if found is not None:
            return found.id
        if bot.versions:  # a real bot under the automaton's name: never rate it as Hal
            raise ValueError(f"bot {name!r} of {game} ({HOUSE_OWNER}) is not an automaton")
    else:
        bot = Bot(owner=HOUSE_OWNER, name=name, game=game, active=True)
        session.add(bot)
        session.flush()
    source = f"{AUTOMATON_PREFIX}{game}:{name}"
    start = ratings.initial_skill()
    version = BotVersion(bot=bot, number=1, kind=AUTOMATON_KIND, source=source,
                         digest=hashlib.sha256(source.encode()).hexdigest(),
                         initial_mu=start.mu, initial_sigma=start.sigma)
    session.add(version)
    session.flush()
    session.add(Rating(bot_version_id=version.id, game=game, mu=start.mu, sigma=start.sigma,
                       provisional=True, games_played=0, distinct_opponents=0, opponent_counts={},
                       seat_counts={}, player_counts={}))
    session.flush()
    return version.id
