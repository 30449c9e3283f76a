"""The organisers' event pages, and the entrants' enter/withdraw buttons on a tournament's page.

* ``/organiser/events`` — the signed-in organiser's events and the form that creates one (game,
  seats, variant, format, rounds, time control, entry rules, comments on or off, round deadline).
* ``/organiser/events/<id>`` — run it: start, open or close entries, pause and resume, the round
  deadline, enter or withdraw a bot, correct a result; its audit log (who, when, why).
* ``POST /tournaments/<id>/enter`` and ``…/withdraw`` — a signed-in author enters or withdraws
  their own bot (the public tournament page shows the form while it applies).

Every change goes through :mod:`arena.play.events`, which checks on the server who may do it —
the event's own organiser (another organiser, a plain user: 403), or the bot's owner for
entering and withdrawing — and writes the audit log. The pages never trust a form for who acts:
the actor is the session's user. Refusals are one sentence in the page, with 403 (not allowed),
404 (no such event) or 409 (the event's state does not allow it).

The website plays no match itself: with a broker the steps hand matches to the workers; without
one, ``arena serve`` (its ticker, :func:`arena.workers.tasks.sweep_events`) starts and plays them.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from sqlalchemy import select
from werkzeug.wrappers import Response

from arena.competition import lifecycle
from arena.db import Bot, BotVersion, Match, MatchSeat, Tournament
from arena.db.accounts import ROLE_ORGANISER
from arena.play import events
from web.account import SignedIn, current_user, sign_in_required
from web.db import db
from web.games import known_games
from web.ids import MAX_ID, parse_number

bp = Blueprint("events", __name__)

#: What a successful step says on the page it returns to (the query names one of these keys;
#: the page never shows the query's own text).
DONE = {
    "created": "Event created.",
    "started": "Entries closed; the event has started.",
    "entries_open": "Entries are open.",
    "entries_closed": "Entries are closed.",
    "paused": "Paused: matches not yet started wait.",
    "resumed": "Resumed.",
    "deadline": "Round deadline saved.",
    "entered": "Entered.",
    "withdrawn": "Withdrawn.",
    "corrected": "Result corrected; standings follow.",
}
MAX_TEXT = 500
MAX_DEADLINE_S = 7 * 24 * 3600
MAX_MS = 3_600_000


def _url() -> str | None:
    return current_app.config.get("ARENA_DATABASE_URL")


def _actor(user: SignedIn) -> events.Actor:
    return events.Actor(user.name, user.role)


def _organiser() -> SignedIn:
    user = current_user()
    assert user is not None  # sign_in_required ran
    if user.role != ROLE_ORGANISER:
        abort(403, description="Only organisers run events (the server operator grants the role with "
                               "`arena organiser NAME`).")
    return user


def _status_of(exc: lifecycle.LifecycleError) -> int:
    if isinstance(exc, lifecycle.Forbidden):
        return 403
    if isinstance(exc, events.EventNotFound):
        return 404
    return 409


def _text(name: str) -> str:
    return request.form.get(name, "").strip()[:MAX_TEXT]


def _whole(name: str, low: int, high: int, what: str, blank: int | None = None) -> int | None:
    raw = request.form.get(name, "").strip()
    if not raw and blank is not None:
        return blank
    if not raw:
        return None
    value = parse_number(raw)
    if value is None or not low <= value <= high:
        raise lifecycle.LifecycleError(f"{what} is a whole number from {low:,} to {high:,}")
    return value


# --- the organiser's list and the create form ----------------------------------------------------


@dataclass(frozen=True)
class EventLine:
    id: int
    name: str
    game: str
    format: str
    status: str
    entries: int
    done: int
    total: int
    entries_open: bool


def _my_events(user: SignedIn) -> list[EventLine]:
    rows = db().scalars(select(Tournament).where(Tournament.organiser == user.name).order_by(Tournament.id.desc())
                        .limit(200)).all()
    return [EventLine(t.id, t.name, t.game, t.format.replace("_", "-"), t.status,
                      sum(1 for e in t.entries if e.withdrawn_at is None), t.matches_done, t.matches_total,
                      bool(t.entries_open)) for t in rows]


def _form_page(user: SignedIn, error: str = "", status: int = 200, form: dict | None = None):  # noqa: ANN202
    return render_template("organiser_events.html", events=_my_events(user), games=known_games(db()),
                           error=error, form=form or {}, max_rounds=events.MAX_ROUNDS), status


@bp.get("/organiser/events")
@sign_in_required
def events_page():  # noqa: ANN201
    return _form_page(_organiser())


@bp.post("/organiser/events")
@sign_in_required
def create_event() -> Response:
    user = _organiser()
    form = {k: request.form.get(k, "")[:MAX_TEXT] for k in request.form if k != "csrf_token"}
    names = {g.name for g in known_games(db())}
    try:
        game = request.form.get("game", "")
        if game not in names:
            raise lifecycle.LifecycleError("choose a game played here")
        fmt = request.form.get("format", "swiss")
        if fmt not in events.FORMATS:
            raise lifecycle.LifecycleError("the format is Swiss or round-robin")
        players = _whole("players", 2, 8, "Seats per table")
        rounds = _whole("rounds", 1, events.MAX_ROUNDS, "Rounds")
        if players is None or rounds is None:
            raise lifecycle.LifecycleError("give the seats per table and the number of rounds")
        decision_ms = _whole("decision_ms", 1, MAX_MS, "The per-decision limit (ms)")
        bank_ms = _whole("bank_ms", 0, MAX_MS, "The time bank (ms)")
        deadline = _whole("deadline", 1, MAX_DEADLINE_S, "The round deadline (s)")
        per_author = _whole("entries_per_author", 1, 1000, "Entries per author", blank=1)
        tid, _ = events.create(
            _url(), _actor(user), game=game, players=players, rounds=rounds,
            variant=_text("variant") or None, format=fmt, decision_ms=decision_ms, bank_ms=bank_ms,
            live_comments=request.form.get("live_comments") == "on", open_entries=True,
            round_deadline_s=deadline, name=_text("name")[:200], entries_per_author=per_author or 1,
            plays_matches=False)
    except lifecycle.LifecycleError as exc:
        return _form_page(user, str(exc), _status_of(exc), form)  # type: ignore[return-value]
    return redirect(url_for("events.event_page", tournament_id=tid, done="created"), code=303)


# --- one event -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryLine:
    bot_id: int
    label: str
    owner: str
    first_round: int
    withdrawn: str  # "" or "by WHO: WHY"


@dataclass(frozen=True)
class FinishedMatch:
    """A match the correction form offers: its seats in order with their ranks now."""

    id: str
    round: int
    table: int
    status: str
    seats: str


def _event(tournament_id: int) -> Tournament:
    t = db().get(Tournament, tournament_id)
    if t is None:
        abort(404, description=f"There is no event number {tournament_id}.")
    return t


def _event_context(t: Tournament) -> dict:
    entries = [EntryLine(e.version.bot_id, e.version.label, e.version.bot.owner, e.joined_round + 1,
                         f"by {e.withdrawn_by}: {e.withdrawn_reason}" if e.withdrawn_at else "")
               for e in t.entries]
    rows = db().execute(
        select(Match.id, Match.round, Match.table, Match.status).where(
            Match.tournament_id == t.id, Match.status.in_(("done", "failed")))
        .order_by(Match.round.desc(), Match.table).limit(300)).all()
    seats: dict[str, list[str]] = {}
    if rows:
        for mid, name, number, rank in db().execute(
                select(MatchSeat.match_id, Bot.name, BotVersion.number, MatchSeat.rank)
                .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id).join(Bot, Bot.id == BotVersion.bot_id)
                .where(MatchSeat.match_id.in_([r.id for r in rows])).order_by(MatchSeat.match_id, MatchSeat.seat)):
            seats.setdefault(mid, []).append(f"{name} v{number}" + (f" #{rank}" if rank is not None else ""))
    finished = [FinishedMatch(r.id, r.round + 1, r.table + 1, r.status, " – ".join(seats.get(r.id, [])))
                for r in rows]
    return {"t": t, "entries": entries, "finished": finished, "audit": lifecycle.audit_log(db(), t),
            "describe": lifecycle.describe(t)}


def _event_page(t: Tournament, error: str = "", status: int = 200):  # noqa: ANN202
    done = DONE.get(request.args.get("done", ""), "")
    return render_template("organiser_event.html", error=error, done=done, **_event_context(t)), status


@bp.get("/organiser/events/<id:tournament_id>")
@sign_in_required
def event_page(tournament_id: int):  # noqa: ANN201
    user = _organiser()
    t = _event(tournament_id)
    if not lifecycle.may_manage(t, user.name, user.role):
        abort(403, description=f"Event {t.id} is run by {t.organiser or 'the server operator'}, not by you.")
    return _event_page(t)


ACTIONS = ("start", "open", "close", "pause", "resume", "deadline", "enter", "withdraw", "correct")


@bp.post("/organiser/events/<id:tournament_id>/<any(" + ", ".join(ACTIONS) + "):action>")
@sign_in_required
def event_action(tournament_id: int, action: str) -> Response:
    user = _organiser()
    actor, url = _actor(user), _url()
    try:
        done = _step(url, tournament_id, action, actor)
    except lifecycle.LifecycleError as exc:
        if isinstance(exc, events.EventNotFound):
            abort(404, description=str(exc))
        t = _event(tournament_id)
        if isinstance(exc, lifecycle.Forbidden):
            abort(403, description=str(exc))
        return _event_page(t, str(exc), _status_of(exc))  # type: ignore[return-value]
    return redirect(url_for("events.event_page", tournament_id=tournament_id, done=done), code=303)


def _step(url: str | None, tid: int, action: str, actor: events.Actor) -> str:
    reason = _text("reason")
    if action == "start":
        events.start(url, tid, actor, plays_matches=False)
        return "started"
    if action in ("open", "close"):
        events.set_entries(url, tid, action == "open", actor, reason)
        return "entries_open" if action == "open" else "entries_closed"
    if action == "pause":
        events.pause(url, tid, actor, reason)
        return "paused"
    if action == "resume":
        events.resume(url, tid, actor, reason, plays_matches=False)
        return "resumed"
    if action == "deadline":
        events.set_deadline(url, tid, _whole("deadline", 0, MAX_DEADLINE_S, "The round deadline (s)", blank=0) or None,
                            actor)
        return "deadline"
    if action == "enter":
        t = _event(tid)
        lifecycle.check_manager(t, actor.name, actor.role)
        bot = lifecycle.find_bot(db(), _text("bot"), t.game)
        events.enter(url, tid, bot.id, actor)
        return "entered"
    if action == "withdraw":
        events.withdraw(url, tid, _bot_field(), actor, reason, plays_matches=False)
        return "withdrawn"
    ranks = [parse_number(x) for x in _text("ranks").replace(" ", "").split(",") if x]
    if not ranks or any(r is None for r in ranks):
        raise lifecycle.LifecycleError("write the ranks as whole numbers separated by commas, e.g. 2,1")
    events.correct(url, tid, _text("match")[:32], [int(r) for r in ranks if r is not None], actor, reason,
                   plays_matches=False)
    return "corrected"


def _bot_field() -> int:
    bot_id = parse_number(request.form.get("bot", "").strip())
    if bot_id is None or bot_id > MAX_ID:
        raise lifecycle.LifecycleError("choose a bot")
    return bot_id


# --- entrants on the public tournament page -------------------------------------------------------


@dataclass(frozen=True)
class PublicEvent:
    """The lifecycle facts the public tournament page shows."""

    status: str
    entries_open: bool
    deadline_s: int | None
    organiser: str | None
    late: list[EntryLine]
    withdrawn: list[EntryLine]
    corrections: int


def public_event(t: Tournament) -> PublicEvent | None:
    """None for a tournament never run as an event (no audit log: a CLI or API tournament of
    before, or one that simply ran), so its page stays as it was."""
    log = lifecycle.audit_log(db(), t)
    if not log and not t.entries_open:
        return None
    ctx = [EntryLine(e.version.bot_id, e.version.label, e.version.bot.owner, e.joined_round + 1,
                     f"by {e.withdrawn_by}: {e.withdrawn_reason}" if e.withdrawn_at else "") for e in t.entries]
    corrections = sum(1 for a in log if a.action == "correct")
    return PublicEvent(t.status, bool(t.entries_open), t.round_deadline_s, t.organiser,
                       [e for e in ctx if e.first_round > 1], [e for e in ctx if e.withdrawn], corrections)


@dataclass(frozen=True)
class EntrantView:
    """What a signed-in author may do on a tournament's page: enter one of ``can_enter`` or
    withdraw one of ``can_withdraw`` (bot id, label)."""

    can_enter: list[tuple[int, str]]
    can_withdraw: list[tuple[int, str]]
    manages: bool


def entrant_view(t: Tournament) -> EntrantView | None:
    """For web/pages.py's tournament page: the signed-in user's choices on this event."""
    user = current_user()
    if user is None or t.status not in lifecycle.LIVE:
        return None
    entered = {e.version.bot_id: e for e in t.entries}
    mine = db().scalars(select(Bot).where(Bot.owner == user.name, Bot.game == t.game, Bot.active.is_(True))
                        .order_by(Bot.name).limit(100)).all()
    enter = [(b.id, b.name) for b in mine if b.id not in entered] if t.entries_open else []
    withdraw = [(b.id, entered[b.id].version.label) for b in mine
                if b.id in entered and entered[b.id].withdrawn_at is None]
    return EntrantView(enter, withdraw, lifecycle.may_manage(t, user.name, user.role))


@bp.post("/tournaments/<id:tournament_id>/<any(enter, withdraw):action>")
@sign_in_required
def entrant_action(tournament_id: int, action: str) -> Response:
    user = current_user()
    assert user is not None
    try:
        bot_id = _bot_field()
        if action == "enter":
            events.enter(_url(), tournament_id, bot_id, _actor(user))
        else:
            events.withdraw(_url(), tournament_id, bot_id, _actor(user), _text("reason") or "withdrawn by its author",
                            plays_matches=False)
    except lifecycle.LifecycleError as exc:
        abort(_status_of(exc), description=str(exc))
    return redirect(url_for("pages.tournament", tournament_id=tournament_id), code=303)
