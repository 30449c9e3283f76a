"""An event's lifecycle, from entries to final standings: what an organiser does to a tournament
after creating it, and what the platform decides by itself — each step written to the event's
audit log (``tournament_audit``: who, when, why).

The rules (the website's and the CLI's help say the same):

* **Entries** — an event created with open entries has status ``open`` and no match: bots
  enter (their author, or the organiser for them) while entries are open; :func:`start` closes
  them and schedules the matches. A running **Swiss** may open entries again: a **late entry**
  is paired from the next round on and starts with **0 points for every round it missed** (no
  bye is credited; its tie-breaks count only the games it played). A round-robin's schedule is
  fixed at its start: no late entry.
* **Withdrawal** — by the entrant (the bot's owner) or the organiser, or automatically when the
  bot is deactivated or its newest submission, made after the entered version, was refused
  qualification (checked at every pairing and deadline sweep). A withdrawn entry is never paired
  again; its games played stand. A match of it not yet started is not played: it is recorded
  as a **forfeit**, unrated — the withdrawn seat last, every other seat sharing first place.
* **Pause and resume** — pausing holds every match not yet started (status ``paused``; matches
  being played finish) and pairs no new round; resuming sends them again and pairs a round
  finished meanwhile.
* **Round deadline** — a match not finished ``round_deadline_s`` seconds after it was sent to the
  workers is taken back from its worker and **sent again once** (another worker takes it); not
  finished the same time after that, it is scored as a **double forfeit, unrated**: the match is
  ``failed``, every seat scores 0 (a failed table scores nothing in the standings,
  :mod:`arena.competition.swiss`). So no round waits forever. Should the match's worker still
  record a result after that, the game was played: its result stands (like a correction), and
  the next sweep sets the event's progress count right and logs it (``late_result``).
* **Correction** — the organiser replaces a finished match's ranks, with a reason; standings are
  computed from the ranks, so they follow, and when the match was rated every rating of the game
  is rebuilt from the history (:func:`arena.evaluation.ratings.rebuild`).

Permission: an event is managed by the organiser who created it (``tournaments.organiser``) or
by the operator on the server machine (the CLI, actor ``operator``); :func:`check_manager` is the
one check, used by the gRPC server and the website alike.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session, aliased

from arena.competition import tournaments
from arena.competition.round_robin import ScheduleError
from arena.db.accounts import ROLE_ORGANISER
from arena.db.models import (
    Bot,
    Match,
    MatchSeat,
    RatingLock,
    Tournament,
    TournamentAudit,
    TournamentEntry,
    TournamentRound,
    utcnow,
)
from arena.evaluation import ratings
from arena.intake import authors

log = logging.getLogger(__name__)

#: The actor of the operator's CLI on the server machine (may manage every event).
OPERATOR = "operator"
#: The actor of the platform's own decisions (automatic withdrawal, deadlines).
SYSTEM = "system"
#: Statuses of an event that can still change.
LIVE = ("open", "scheduled", "running", "paused")
#: What a withdrawn seat's forfeit says; and a deadline's double forfeit.
WITHDRAWN_FORFEIT = "withdrawn from the event"
DEADLINE_FORFEIT = "round deadline passed twice: double forfeit, unrated"
MAX_REASON = 500


class LifecycleError(ValueError):
    """A step the event's state does not allow, said plainly (the caller shows the message)."""


class Forbidden(LifecycleError):
    """The caller may not manage this event."""


def may_manage(t: Tournament, actor: str, role: str | None) -> bool:
    """Whether ``actor`` (a user name with ``role``, or :data:`OPERATOR`) may manage ``t``."""
    if actor == OPERATOR:
        return True
    return role == ROLE_ORGANISER and t.organiser is not None and t.organiser == actor


def check_manager(t: Tournament, actor: str, role: str | None) -> None:
    if role != ROLE_ORGANISER and actor != OPERATOR:
        raise Forbidden("only organisers manage events (the server operator grants the role with "
                        "`arena organiser NAME`)")
    if not may_manage(t, actor, role):
        raise Forbidden(f"event {t.id} is managed by {t.organiser or 'the operator'}, not by {actor}")


def audit(session: Session, t: Tournament, actor: str, action: str, reason: str = "",
          match_id: str | None = None, detail: dict | None = None) -> TournamentAudit:
    row = TournamentAudit(tournament_id=t.id, at=utcnow(), actor=actor, action=action, match_id=match_id,
                          reason=(reason or "").strip()[:MAX_REASON], detail=detail)
    session.add(row)
    return row


def audit_log(session: Session, t: Tournament) -> list[TournamentAudit]:
    return list(session.scalars(select(TournamentAudit).where(TournamentAudit.tournament_id == t.id)
                                .order_by(TournamentAudit.id)))


def _live(t: Tournament) -> None:
    if t.status not in LIVE:
        raise LifecycleError(f"event {t.id} is {t.status}: nothing can change any more")


def _next_round(session: Session, t: Tournament) -> int:
    last = session.scalar(select(func.max(TournamentRound.round)).where(TournamentRound.tournament_id == t.id))
    return 0 if last is None else last + 1


def set_entries(session: Session, t: Tournament, open_: bool, actor: str, reason: str = "") -> None:
    """Open or close entries. Opening a running event is a late entry: Swiss only."""
    _live(t)
    if open_ and t.status != "open" and t.format != "swiss":
        raise LifecycleError("a round-robin's schedule is fixed once it starts: no late entry")
    if open_ and t.status != "open" and _next_round(session, t) >= t.rounds:
        raise LifecycleError("every round is paired already: a late entry would never play")
    if t.entries_open == open_:
        return
    t.entries_open = open_
    audit(session, t, actor, "open_entries" if open_ else "close_entries", reason)


def enter(session: Session, t: Tournament, bot: Bot, actor: str) -> TournamentEntry:
    """Enter ``bot`` (its playing version) while entries are open; a late entry in a running
    Swiss joins from the next round with 0 points for the rounds it missed."""
    _live(t)
    if not t.entries_open:
        raise LifecycleError(f"entries to event {t.id} are closed")
    if bot.game != t.game:
        raise LifecycleError(f"{bot.name} plays {bot.game}, not {t.game}")
    version = bot.playing_version
    if not bot.active or version is None:
        raise LifecycleError(f"{bot.name} has no active qualified version")
    if version.kind == "automaton":
        raise LifecycleError(f"{bot.name} is a solo automaton: rated in solo games, never seated")
    entered = {e.version.bot_id: e for e in t.entries}
    if bot.id in entered:
        raise LifecycleError(f"{bot.name} has entered already" if entered[bot.id].withdrawn_at is None
                             else f"{bot.name} withdrew; a withdrawn entry does not come back")
    active = [e.bot_version_id for e in t.entries if e.withdrawn_at is None]
    try:
        authors.check_entries(session, [*active, version.id], t.entries_per_author)
    except authors.AuthorRuleError as exc:
        raise LifecycleError(str(exc)) from None
    late = t.status != "open"
    joined = _next_round(session, t) if late else 0
    if late and joined >= t.rounds:
        raise LifecycleError("every round is paired already: a late entry would never play")
    entry = TournamentEntry(tournament_id=t.id, bot_version_id=version.id, joined_round=joined,
                            position=max((e.position for e in t.entries), default=-1) + 1)
    session.add(entry)
    t.entries.append(entry)
    audit(session, t, actor, "late_entry" if late else "enter",
          f"{bot.name} v{version.number} joins from round {joined + 1} with 0 points for the rounds missed"
          if late else f"{bot.name} v{version.number}", detail={"version_id": version.id, "round": joined})
    session.flush()
    return entry


def _entry(t: Tournament, version_id: int) -> TournamentEntry:
    entry = next((e for e in t.entries if e.bot_version_id == version_id), None)
    if entry is None:
        raise LifecycleError(f"bot version {version_id} has not entered event {t.id}")
    return entry


def withdraw(session: Session, t: Tournament, version_id: int, actor: str, reason: str) -> int:
    """Withdraw an entry: never paired again; its matches not yet started are recorded as its
    forfeit (unrated). Returns how many matches were forfeited."""
    _live(t)
    entry = _entry(t, version_id)
    if entry.withdrawn_at is not None:
        raise LifecycleError(f"{entry.version.label} withdrew already")
    if not (reason or "").strip():
        raise LifecycleError("say why the entry withdraws (the reason goes to the audit log)")
    entry.withdrawn_at, entry.withdrawn_by = utcnow(), actor
    entry.withdrawn_reason = reason.strip()[:MAX_REASON]
    audit(session, t, actor, "withdraw", reason, detail={"version_id": version_id})
    forfeited = 0
    open_ids = list(session.scalars(
        select(Match.id).join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(Match.tournament_id == t.id, Match.status.in_(("pending", "paused")),
               MatchSeat.bot_version_id == version_id)))
    for mid in open_ids:
        forfeited += _forfeit_withdrawn(session, t, mid, version_id)
    session.flush()
    return forfeited


def _forfeit_withdrawn(session: Session, t: Tournament, match_id: str, version_id: int) -> int:
    taken = session.execute(
        update(Match).where(Match.id == match_id, Match.status.in_(("pending", "paused")))
        .values(status="done", rated=False, finished_at=utcnow(), lease_until=None,
                result={"withdrawn": version_id})
        .execution_options(synchronize_session=False)).rowcount
    if not taken:  # a worker started it meanwhile: it is played, its result stands
        return 0
    seats = list(session.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)))
    for seat in seats:
        gone = seat.bot_version_id == version_id
        seat.rank = len(seats) if gone else 1
        seat.forfeit = WITHDRAWN_FORFEIT if gone else None
    _one_finished(session, t)
    audit(session, t, SYSTEM, "forfeit", f"{WITHDRAWN_FORFEIT}: the match was not played",
          match_id=match_id, detail={"version_id": version_id})
    return 1


def _one_finished(session: Session, t: Tournament) -> None:
    """One more of ``t``'s matches finished (as recording counts one; arena.records.recording)."""
    session.flush()
    session.execute(
        update(Tournament).where(Tournament.id == t.id)
        .values(matches_done=Tournament.matches_done + 1)
        .execution_options(synchronize_session=False))
    session.refresh(t)
    if t.matches_done >= t.matches_total and t.status in ("running", "paused"):
        t.status, t.finished_at = "done", utcnow()


def withdraw_unfit(session: Session, t: Tournament) -> list[int]:
    """Withdraw (actor ``system``) every active entry whose bot was deactivated, or whose newest
    submission, made after the entered version, was refused qualification
    (:func:`arena.competition.tournaments.unfit_entries`). Their version ids."""
    gone = []
    for vid, why in tournaments.unfit_entries(session, t):
        withdraw(session, t, vid, SYSTEM, why)
        gone.append(vid)
    return gone


def start(session: Session, t: Tournament, actor: str) -> None:
    """Close entries of an ``open`` event and create its matches (status ``scheduled``; the
    caller sends it to the workers, arena.workers.tasks.schedule_tournament)."""
    if t.status != "open":
        raise LifecycleError(f"event {t.id} has started already ({t.status})")
    withdraw_unfit(session, t)
    field = [e.bot_version_id for e in t.entries if e.withdrawn_at is None]
    if len(field) < t.players:
        raise LifecycleError(f"{t.players}-seat tables need at least {t.players} entries; {len(field)} so far")
    try:
        with session.begin_nested():  # a refused field leaves the event open, as it was
            t.status, t.entries_open = "scheduled", False
            tournaments.schedule_matches(session, t, field)
    except ScheduleError as exc:
        raise LifecycleError(str(exc)) from None
    audit(session, t, actor, "start", f"{len(field)} entries; entries closed")
    session.flush()


def pause(session: Session, t: Tournament, actor: str, reason: str = "") -> int:
    """Hold every match not yet started; returns how many. Matches being played finish."""
    if t.status not in ("running", "scheduled"):
        raise LifecycleError(f"only a running event can be paused; event {t.id} is {t.status}")
    held = session.execute(
        update(Match).where(Match.tournament_id == t.id, Match.status == "pending").values(status="paused")
        .execution_options(synchronize_session=False)).rowcount
    t.status = "paused"
    audit(session, t, actor, "pause", reason, detail={"held": held})
    return held


def resume(session: Session, t: Tournament, actor: str, reason: str = "") -> list[str]:
    """Resume a paused event: the held matches' ids, pending again, for the caller to send."""
    if t.status != "paused":
        raise LifecycleError(f"event {t.id} is not paused ({t.status})")
    ids = list(session.scalars(select(Match.id).where(Match.tournament_id == t.id, Match.status == "paused")
                               .order_by(Match.round, Match.table)))
    # queued_at cleared: sent again from now (by the caller, or by a sweep as a match never sent),
    # the round deadline counts from then, not from before the pause
    session.execute(update(Match).where(Match.tournament_id == t.id, Match.status == "paused")
                    .values(status="pending", queued_at=None).execution_options(synchronize_session=False))
    t.status = "running" if t.started_at else "scheduled"
    if t.status == "running" and t.matches_total and t.matches_done >= t.matches_total:
        t.status, t.finished_at = "done", utcnow()
    audit(session, t, actor, "resume", reason, detail={"released": len(ids)})
    return ids


def set_deadline(session: Session, t: Tournament, seconds: int | None, actor: str) -> None:
    _live(t)
    if seconds is not None and seconds < 1:
        raise LifecycleError("the round deadline must be at least one second (or none)")
    t.round_deadline_s = seconds
    audit(session, t, actor, "deadline", "no round deadline" if seconds is None else f"{seconds} s a match")


def correct_result(session: Session, t: Tournament, match_id: str, ranks: list[int], actor: str,
                   reason: str) -> bool:
    """Replace a finished match's ranks (1 = first; equal ranks share). True when the ratings of
    the game were rebuilt (the match was rated)."""
    if not (reason or "").strip():
        raise LifecycleError("say why the result is corrected (the reason goes to the audit log)")
    match = session.get(Match, match_id)
    if match is None or match.tournament_id != t.id:
        raise LifecycleError(f"match {match_id} is not a match of event {t.id}")
    if match.status not in ("done", "failed"):
        raise LifecycleError(f"match {match_id} has not finished ({match.status}): nothing to correct")
    seats = sorted(match.seats, key=lambda s: s.seat)
    if len(ranks) != len(seats) or any(not 1 <= r <= len(seats) for r in ranks):
        raise LifecycleError(f"give one rank from 1 to {len(seats)} for each of the {len(seats)} seats")
    before = [s.rank for s in seats]
    for seat, rank in zip(seats, ranks, strict=True):
        seat.rank = rank
    was_failed = match.status == "failed"
    match.status = "done"
    match.error = None
    result = dict(match.result or {})
    result["corrected_ranks"] = list(ranks)
    match.result = result
    audit(session, t, actor, "correct", reason, match_id=match_id,
          detail={"before": before, "after": list(ranks), "was": "failed" if was_failed else "done"})
    session.flush()
    rebuilt = match.rating_seq is not None
    if rebuilt:  # the game's lock: no result is recorded while the ratings are rebuilt
        session.scalar(select(RatingLock).where(RatingLock.game == t.game).with_for_update())
        ratings.write_rebuilt(session, t.game)
    return rebuilt


@dataclass(frozen=True)
class DeadlineStep:
    tournament_id: int
    match_id: str
    action: str  # deadline_retry | deadline_forfeit | late_result


def enforce_deadlines(session: Session, now: datetime | None = None) -> tuple[list[DeadlineStep], list[str]]:
    """Apply every running event's round deadline: the steps taken and the ids of matches to
    send again. Also withdraws unfit entries of those events. The caller commits, then sends."""
    now = now or utcnow()
    steps: list[DeadlineStep] = []
    resend: list[str] = []
    for t in session.scalars(select(Tournament).where(Tournament.status == "running",
                                                      Tournament.round_deadline_s.is_not(None))):
        withdraw_unfit(session, t)
        limit = now - timedelta(seconds=t.round_deadline_s or 0)
        late = session.execute(select(Match.id).where(
            Match.tournament_id == t.id, Match.status.in_(("pending", "running")),
            Match.queued_at.is_not(None), Match.queued_at < limit)).scalars().all()
        for mid in late:
            retried = session.scalar(select(exists().where(TournamentAudit.match_id == mid,
                                                           TournamentAudit.action == "deadline_retry")))
            if not retried:
                moved = session.execute(
                    update(Match).where(Match.id == mid, Match.status.in_(("pending", "running")))
                    .values(status="pending", worker=None, lease_until=None, queued_at=now)
                    .execution_options(synchronize_session=False)).rowcount
                if moved:
                    audit(session, t, SYSTEM, "deadline_retry",
                          f"not finished {t.round_deadline_s} s after it was sent: sent again, once",
                          match_id=mid)
                    steps.append(DeadlineStep(t.id, mid, "deadline_retry"))
                    resend.append(mid)
                continue
            moved = session.execute(
                update(Match).where(Match.id == mid, Match.status.in_(("pending", "running")))
                .values(status="failed", rated=False, error=DEADLINE_FORFEIT, finished_at=now, lease_until=None)
                .execution_options(synchronize_session=False)).rowcount
            if moved:
                _one_finished(session, t)
                audit(session, t, SYSTEM, "deadline_forfeit", DEADLINE_FORFEIT, match_id=mid)
                steps.append(DeadlineStep(t.id, mid, "deadline_forfeit"))
    _late_results(session, steps)
    session.flush()
    return steps, resend


def _late_results(session: Session, steps: list[DeadlineStep]) -> None:
    """A result that arrived after a match's double forfeit (its worker was alive after all):
    the match was played, so its result stands, as a correction would; recording counted the
    match a second time, so the event's progress is set right, and the audit log says so."""
    logged = aliased(TournamentAudit)
    late = session.execute(
        select(Match.id, Match.tournament_id).join(TournamentAudit, TournamentAudit.match_id == Match.id)
        .where(TournamentAudit.action == "deadline_forfeit", Match.status == "done",
               ~exists().where(logged.match_id == Match.id, logged.action == "late_result"))
    ).all()
    for mid, tid in late:
        t = session.get(Tournament, tid)
        t.matches_done = max(0, t.matches_done - 1)
        if t.status == "done" and t.matches_done < t.matches_total:
            t.status, t.finished_at = "running", None
        audit(session, t, SYSTEM, "late_result", "a result arrived after the double forfeit: the game was played, "
              "its result stands", match_id=mid)
        steps.append(DeadlineStep(tid, mid, "late_result"))


def describe(t: Tournament) -> str:
    """One line on the event's state for pages and the CLI."""
    entries = "entries open" if t.entries_open else "entries closed"
    deadline = f"round deadline {t.round_deadline_s} s" if t.round_deadline_s else "no round deadline"
    return f"{t.status}; {entries}; {deadline}"


def find_bot(session: Session, name_or_id: str, game: str, owner: str | None = None) -> Bot:
    """A bot of ``game`` by id, ``OWNER/NAME`` or (an owner's own) ``NAME``."""
    text = (name_or_id or "").strip()
    query = select(Bot).where(Bot.game == game)
    if text.isdigit():
        bot = session.scalar(query.where(Bot.id == int(text)))
    elif "/" in text:
        who, name = text.split("/", 1)
        bot = session.scalar(query.where(Bot.owner == who, Bot.name == name))
    else:
        candidates = list(session.scalars(query.where(Bot.name == text, *([Bot.owner == owner] if owner else []))))
        bot = candidates[0] if len(candidates) == 1 else None
        if len(candidates) > 1:
            raise LifecycleError(f"more than one {game} bot is called {text!r}: write OWNER/NAME")
    if bot is None:
        raise LifecycleError(f"no {game} bot {text!r}")
    return bot


def version_of(session: Session, t: Tournament, name_or_id: str) -> int:
    """The entered version of ``name_or_id`` (a version id, a bot id, OWNER/NAME or NAME)."""
    text = (name_or_id or "").strip()
    by_version = {e.bot_version_id: e for e in t.entries}
    if text.isdigit() and int(text) in by_version:
        return int(text)
    bot = find_bot(session, text, t.game)
    entry = next((e for e in t.entries if e.version.bot_id == bot.id), None)
    if entry is None:
        raise LifecycleError(f"{bot.name} has not entered event {t.id}")
    return entry.bot_version_id

