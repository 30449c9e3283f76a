"""An organiser running an event: each step of :mod:`arena.competition.lifecycle` checked for
permission, committed, and then its matches handed to the workers — the one path the gRPC API
(arena.server.tournaments), the website's organiser pages (web/events.py) and the operator's CLI
(``arena tournament …``) share, so a rule is enforced once.

``actor`` is who acts: a user name with its ``role``, or :data:`lifecycle.OPERATOR` (the CLI on
the server machine, which may manage every event). An event is managed by the organiser who
created it; a bot is entered or withdrawn by its owner too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.orm import Session

from arena.competition import lifecycle, tournaments
from arena.competition.lifecycle import Forbidden, LifecycleError
from arena.competition.round_robin import ScheduleError
from arena.db import Bot, Tournament, session_scope
from arena.db.accounts import ROLE_ORGANISER
from arena.intake import authors
from arena.workers.sandbox import sandbox_default

log = logging.getLogger(__name__)

T = TypeVar("T")

FORMATS = tournaments.FORMATS
MAX_ROUNDS = 100


class EventNotFound(LifecycleError):
    """No such event."""


@dataclass(frozen=True)
class Actor:
    """Who acts: a user's name and role, or the operator."""

    name: str
    role: str | None = None


OPERATOR = Actor(lifecycle.OPERATOR)


def _load(session: Session, tournament_id: int) -> Tournament:
    t = session.get(Tournament, tournament_id)
    if t is None:
        raise EventNotFound(f"no event with id {tournament_id}")
    return t


def _managed(url: str | None, tournament_id: int, actor: Actor, step: Callable[[Session, Tournament], T]) -> T:
    with session_scope(url) as s:
        t = _load(s, tournament_id)
        lifecycle.check_manager(t, actor.name, actor.role)
        return step(s, t)


def _may_send(plays_matches: bool) -> bool:
    """Whether this process hands matches out: always with a broker (the workers play them);
    without one only a process that plays matches (the gRPC server, the CLI) — the website
    leaves them to ``arena serve``'s ticker (arena.workers.tasks.sweep_events)."""
    from arena.workers.celery_app import has_broker

    return plays_matches or has_broker()


def send_start(tournament_id: int, plays_matches: bool = True) -> str:
    """Hand a scheduled event to the workers; a notice when only the sweeper can start it."""
    from arena.workers import tasks

    if not _may_send(plays_matches):
        return ""
    try:
        tasks.schedule_tournament.delay(tournament_id)
    except Exception as exc:  # noqa: BLE001 - kombu's connection errors vary by transport
        log.warning("event %s stored; its start message could not be sent: %s", tournament_id, exc)
        return ("start pending: the broker cannot be reached now; the sweeper starts the event once "
                "the broker is back")
    return ""


def _send(ids: list[str], plays_matches: bool) -> None:
    from arena.workers import tasks

    if ids and _may_send(plays_matches):
        tasks.enqueue(ids)


def _pair_if_round_done(tournament_id: int, plays_matches: bool) -> None:
    """A step that finished a Swiss round's last match (a forfeit, a resume) pairs the next one."""
    _send(tournaments.pair_next_round(tournament_id), plays_matches)


def create(url: str | None, actor: Actor, *, game: str, players: int, rounds: int = 1, variant: str | None = None,
           format: str = "swiss", version_ids: list[int] | None = None,  # noqa: A002 - the API's word
           decision_ms: int | None = None, bank_ms: int | None = None, live_comments: bool = False,
           open_entries: bool = True, round_deadline_s: int | None = None, name: str = "",
           entries_per_author: int = authors.DEFAULT_ENTRIES_PER_AUTHOR, sandbox: bool | None = None,
           seed: int = 0, plays_matches: bool = True) -> tuple[int, str]:
    """Create an event (organisers only); started at once unless ``open_entries``. Its id and a
    notice."""
    if actor.name != lifecycle.OPERATOR and actor.role != ROLE_ORGANISER:
        raise Forbidden("only organisers create events (the server operator grants the role with "
                        "`arena organiser NAME`)")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise LifecycleError(f"rounds must be from 1 to {MAX_ROUNDS}")
    if bank_ms and not decision_ms:
        raise LifecycleError("a time bank needs a per-decision limit")
    with session_scope(url) as s:
        try:
            t = tournaments.create_tournament(
                s, game, list(version_ids or []), players, rounds=rounds, variant=variant or None, seed=seed,
                decision_ms=decision_ms, bank_ms=bank_ms if decision_ms else None,
                sandbox=sandbox_default() if sandbox is None else sandbox, name=name[:200],
                live_comments=live_comments, format=format, entries_per_author=entries_per_author,
                open_entries=open_entries, organiser=None if actor.name == lifecycle.OPERATOR else actor.name,
                round_deadline_s=round_deadline_s)
        except (ScheduleError, ValueError, KeyError) as exc:
            raise LifecycleError(str(exc).strip("'\"")) from None
        lifecycle.audit(s, t, actor.name, "create", f"{t.format.replace('_', '-')} of {t.rounds} round(s), "
                        f"{t.players} seats; entries {'open' if open_entries else 'closed'}")
        tid = t.id
    return tid, ("" if open_entries else send_start(tid, plays_matches))


def start(url: str | None, tournament_id: int, actor: Actor, plays_matches: bool = True) -> str:
    _managed(url, tournament_id, actor, lambda s, t: lifecycle.start(s, t, actor.name))
    return send_start(tournament_id, plays_matches)


def set_entries(url: str | None, tournament_id: int, open_: bool, actor: Actor, reason: str = "") -> None:
    _managed(url, tournament_id, actor, lambda s, t: lifecycle.set_entries(s, t, open_, actor.name, reason))


def _owner_or_manager(t: Tournament, bot: Bot, actor: Actor) -> None:
    if actor.name != lifecycle.OPERATOR and bot.owner == actor.name:
        return
    try:
        lifecycle.check_manager(t, actor.name, actor.role)
    except Forbidden:
        raise Forbidden(f"{bot.name} is {bot.owner}'s bot: only its owner or the event's organiser "
                        "enters or withdraws it") from None


def enter(url: str | None, tournament_id: int, bot_id: int, actor: Actor) -> None:
    with session_scope(url) as s:
        t = _load(s, tournament_id)
        bot = s.get(Bot, bot_id)
        if bot is None:
            raise LifecycleError(f"no bot with id {bot_id}")
        _owner_or_manager(t, bot, actor)
        lifecycle.enter(s, t, bot, actor.name)


def withdraw(url: str | None, tournament_id: int, bot_id: int, actor: Actor, reason: str,
             plays_matches: bool = True) -> int:
    with session_scope(url) as s:
        t = _load(s, tournament_id)
        bot = s.get(Bot, bot_id)
        if bot is None:
            raise LifecycleError(f"no bot with id {bot_id}")
        _owner_or_manager(t, bot, actor)
        entry = next((e for e in t.entries if e.version.bot_id == bot.id), None)
        if entry is None:
            raise LifecycleError(f"{bot.name} has not entered event {tournament_id}")
        forfeited = lifecycle.withdraw(s, t, entry.bot_version_id, actor.name, reason)
    if forfeited:
        _pair_if_round_done(tournament_id, plays_matches)
    return forfeited


def pause(url: str | None, tournament_id: int, actor: Actor, reason: str = "") -> int:
    return _managed(url, tournament_id, actor, lambda s, t: lifecycle.pause(s, t, actor.name, reason))


def resume(url: str | None, tournament_id: int, actor: Actor, reason: str = "",
           plays_matches: bool = True) -> int:
    def step(session: Session, t: Tournament) -> tuple[list[str], str]:
        return lifecycle.resume(session, t, actor.name, reason), t.status

    ids, status = _managed(url, tournament_id, actor, step)
    if status == "scheduled":  # paused before it started: its start (and its matches) is sent now
        send_start(tournament_id, plays_matches)
    else:
        _send(ids, plays_matches)
        _pair_if_round_done(tournament_id, plays_matches)
    return len(ids)


def set_deadline(url: str | None, tournament_id: int, seconds: int | None, actor: Actor) -> None:
    _managed(url, tournament_id, actor, lambda s, t: lifecycle.set_deadline(s, t, seconds, actor.name))


def correct(url: str | None, tournament_id: int, match_id: str, ranks: list[int], actor: Actor,
            reason: str, plays_matches: bool = True) -> bool:
    rebuilt = _managed(url, tournament_id, actor,
                       lambda s, t: lifecycle.correct_result(s, t, match_id, ranks, actor.name, reason))
    _pair_if_round_done(tournament_id, plays_matches)  # pairs nothing unless a round is complete
    return rebuilt


def bot_deactivated(url: str | None, bot_id: int) -> int:
    """Withdraw a just-deactivated bot from every event still running (actor ``system``; its
    matches not yet started become its forfeits), then pair a round that finished so. How many
    events it left."""
    from sqlalchemy import select

    from arena.db import BotVersion, TournamentEntry

    with session_scope(url) as s:
        tids = sorted(set(s.scalars(
            select(TournamentEntry.tournament_id).join(BotVersion, BotVersion.id == TournamentEntry.bot_version_id)
            .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
            .where(BotVersion.bot_id == bot_id, TournamentEntry.withdrawn_at.is_(None),
                   Tournament.status.in_(lifecycle.LIVE)))))
        for tid in tids:
            lifecycle.withdraw_unfit(s, s.get(Tournament, tid))
    for tid in tids:
        _pair_if_round_done(tid, plays_matches=True)
    return len(tids)
