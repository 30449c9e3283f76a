"""Play a bot: a person's seat in the browser (``/play``), on :mod:`arena.play.human`.

The site otherwise only reads; these views write through :mod:`arena.play.human` (the platform's
own engine, not the page's read-only session). A game is started with a form (game, players,
variant, your seat, the bot in each other seat), and the seat's secret goes into a cookie
scoped to that game's pages (``HttpOnly``, ``SameSite=Strict``): only that browser sees the
seat's observation and may answer for it; any other client gets a 403 that points to the
public live page. Option buttons (and **Resign**) are plain form posts, so the page works without
JavaScript; ``play.js`` sends them with ``fetch`` instead and swaps the new page in without a
reload, shows the public table (the live page's fragment) while the bots move, swaps in the
next decision when ``/play/<id>/state`` says it came, and counts the clock down. Human games are
never rated (see :mod:`arena.play.human`).

The site serves with a few threads (``web.command``: :data:`web.command.THREADS`), so a click
never holds one for long: a click sent by ``play.js`` returns at once (the page then waits on
``/play/<id>/state``), and a plain form post waits up to :data:`CHOICE_WAIT_S` for the bots'
moves only if no other click of that seat is waiting and fewer than :data:`CHOICE_WAITERS`
clicks wait in this process — otherwise it returns at once too. However many posts one client
sends, at most :data:`CHOICE_WAITERS` threads wait.

The bot's reply shows as soon as it is made: ``/play/<id>/state?wait=1`` is a long poll. It
answers at once when the seat's status or decision is not the one the page shows, else waits
(up to :data:`LONG_POLL_S`) until one changes or the public feed moves on — woken by the
process playing the match (:func:`arena.play.human.wait_for_change`), or, where another process
plays it, by re-reading the row every :data:`LONG_POLL_RECHECK_S`. A waiting request holds no
database connection (the session is closed before each wait). At most
:data:`LONG_POLL_WAITERS` requests wait in this process and :data:`LONG_POLL_PER_CLIENT` per
client address; any other answers at once with ``"waited": false`` and the page asks again
after :data:`FALLBACK_POLL_MS` (the fallback: plain polling).
"""

from __future__ import annotations

import random
import re
import threading
import time
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    get_flashed_messages,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from arena.play import human
from referee import registry
from web import account
from web.db import db
from web.games import game_info
from web.labels import plain, readable
from web.live import decision_log
from web.option_words import choice_words
from web.pages import replay_for
from web.queries import matches as match_q
from web.targets import choices

bp = Blueprint("play", __name__)

_MATCH_ID = re.compile(r"[0-9a-f]{32}")
#: At most this many seats (the games' largest table is five).
MAX_SEATS = 5
#: After a plain form post (no JavaScript), wait up to this long for the bots' moves before
#: showing the page again, so it shows the next decision rather than "the others are moving".
CHOICE_WAIT_S = 2.0
#: At most this many clicks wait so in this process at once (one per seat); the others return
#: at once. The site serves with 14 threads: waiting clicks can never take most of them.
CHOICE_WAITERS = 2
#: The header ``play.js`` sends with a click: it waits on ``/state``, so the click need not.
POLLING_HEADER = "X-Play-Polling"
#: The flash category of a refused move's message, shown once on the seat page that follows.
PLAY_ERROR = "play-error"

#: A waiting ``/state`` request answers after this long at most (the page asks again at once).
LONG_POLL_S = 25.0
#: At most this many ``/state`` requests wait in this process at once (``web.command`` serves
#: with 14 threads: with the clicks' :data:`CHOICE_WAITERS`, at least 6 always serve pages).
LONG_POLL_WAITERS = 6
#: At most this many wait per client address (two tabs of one person; a third polls).
LONG_POLL_PER_CLIENT = 2
#: Where the match is played by another process, a waiting request re-reads the row this often.
LONG_POLL_RECHECK_S = 0.5
#: Where the match is played here, it re-reads the row this often anyway (a missed wake-up
#: costs at most this long).
LONG_POLL_SAFETY_S = 5.0
#: How long ``play.js`` waits before asking again when its request was not let wait.
FALLBACK_POLL_MS = 500

_waiters = threading.BoundedSemaphore(CHOICE_WAITERS)
_long_lock = threading.Lock()
_long_by_client: dict[str, int] = {}
_waiting_seats: set[str] = set()
_waiting_lock = threading.Lock()


def _url() -> str:
    """The database the site reads, which the human games write (``arena web --database``)."""
    maker = current_app.extensions["arena_sessionmaker"]
    return maker.kw["bind"].url.render_as_string(hide_password=False)


def _cookie(match_id: str) -> str:
    return f"arena_seat_{match_id}"


def _secret(match_id: str) -> str | None:
    return request.cookies.get(_cookie(match_id))


def _same_origin() -> None:
    """A form post must come from this site (the seat cookie is SameSite=Strict too)."""
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") != request.host_url.rstrip("/"):
        abort(403, description="a game can only be started or played from this site's own pages")


def _configurations(game: str) -> dict[int, tuple[str, ...]]:
    spec = registry.get_spec(game)
    return {players: spec.variants_for(players) for players in spec.player_counts}


def _form_problem(game: str, players_raw: str | None) -> str | None:
    """What is wrong with the form's game and number of players, naming what is allowed (None:
    nothing). A form value the form never offers is a mistake to explain, not a missing page."""
    games = registry.game_names()
    if game not in games:
        shown = game[:40] + ("…" if len(game) > 40 else "")
        return f"there is no game “{shown}”: choose one of {', '.join(games)}"
    if players_raw is None:
        return None
    counts = sorted(_configurations(game))
    if not (players_raw.isdigit() and len(players_raw) < 4 and int(players_raw) in counts):
        return (f"{game_info(game).title} is played by {', '.join(map(str, counts))} player(s), "
                f"not “{players_raw[:12]}”")
    return None


@bp.get("/play")
def new_game(error: str | None = None, status: int = 200) -> Any:
    """Choose a game, the number of players, a variant, your seat and the bots to play.

    A game or a number of players the form does not offer answers 400 with the form and what
    is allowed (``?game=`` and ``?players=`` are the form's own links)."""
    games = registry.game_names()
    game = request.values.get("game") or ""
    raw_players = request.values.get("players") or None
    problem = _form_problem(game, raw_players) if game else None
    if problem is not None:
        if error is None:
            error, status = problem, 400
        if game not in games:
            game = ""
        raw_players = None
    context: dict[str, Any] = {"games": [game_info(g) for g in games], "game": None, "error": error}
    if game:
        configs = _configurations(game)
        players = int(raw_players) if raw_players else min(p for p in configs if p > 1)
        context.update(
            game=game_info(game),
            configs=configs,
            players=players,
            variants=configs[players],
            default_variant=registry.get_spec(game).default_variant,
            **_opponent_choices(game),
            decision_s=human.decision_seconds(),
        )
    return render_template("play_new.html", **context), status


def _start_problem(form: Any) -> str | None:
    """What is wrong with a start form (game, players, variant, seat, opponents), naming what is
    allowed; None when the platform may be asked (it checks again, and the caps)."""
    game = form.get("game", "")
    problem = _form_problem(game, form.get("players", ""))
    if problem is not None:
        return problem
    players = int(form["players"])
    variants = _configurations(game)[players]
    variant = form.get("variant") or None
    if variant is not None and variant not in variants:
        return (f"a {players}-player game of {game_info(game).title} has the variants "
                f"{', '.join(variants)}, not “{variant[:40]}”")
    chosen = form.get("seat", "random")
    if chosen != "random" and not (chosen.isdigit() and 1 <= int(chosen[:3]) <= players):
        return f"your seat is player 1 to {players} or random, not “{chosen[:12]}”"
    return None


def _opponent_choices(game: str) -> dict[str, Any]:
    """The opponents the form lists (``?bot=ID``, from a bot page's "Play this bot", comes first
    and is chosen for the first opponent's seat)."""
    raw = request.args.get("bot", "")
    include = int(raw) if raw.isdigit() and len(raw) < 12 else None
    listed, total = human.listed_opponents(db(), game, include)
    preselect = next((o.key for o in listed if include is not None and o.bot_id == include), None)
    return {"opponents": listed, "active_bots": total, "listed_max": human.LISTED,
            "preselect": preselect}


@bp.post("/play")
def start() -> Any:
    """Start a game: the seat's secret goes into a cookie, then to the seat's page."""
    _same_origin()
    form = request.form
    problem = _start_problem(form)
    if problem is not None:
        return new_game(error=problem, status=400)
    game = form.get("game", "")
    players = int(form["players"])
    chosen_seat = form.get("seat", "random")
    seat = (
        random.randrange(players)
        if chosen_seat == "random" and players > 0
        else int(chosen_seat) - 1
        if chosen_seat.isdigit()
        else -1
    )
    keys = (
        [form.get(f"opponent{i}", "") for i in range(1, players)]
        if 0 < players <= MAX_SEATS
        else []
    )
    try:
        started = human.start_game(
            _url(),
            game,
            players,
            form.get("variant") or None,
            seat,
            keys,
            human.client_key(account.client_key()),
        )
    except human.HumanGamesFull as exc:
        return new_game(error=str(exc), status=429)
    except human.HumanGameError as exc:
        return new_game(error=str(exc), status=400)
    response = redirect(url_for("play.seat", match_id=started.match_id), code=303)
    response.set_cookie(
        _cookie(started.match_id),
        started.secret,
        max_age=7 * 24 * 3600,
        path=url_for("play.seat", match_id=started.match_id),
        httponly=True,
        samesite="Strict",
        secure=request.is_secure,
    )
    return response


def _view(match_id: str) -> human.SeatView:
    if not _MATCH_ID.fullmatch(match_id):
        abort(404, description="There is no such game.")
    view = human.seat_view(db(), match_id, _secret(match_id))
    if view is None:
        abort(
            403,
            description="This seat belongs to another browser: only the person playing it "
            "sees its hand. Watch the game on its live page instead: "
            f"/matches/{match_id}/live",
        )
    return view


def seat_board(observation: dict[str, Any] | None, game: str, seat: int, players: int) -> dict[str, Any]:
    """A seat's observation shaped as the board templates read a view: the seat's own hand
    (and Orbital's peek) where a spectator view keeps every seat's, the others' left out. The
    observation's own keys stay (``seat``, Solenia's named ``hand``: the board marks the hand's
    cards with their ids from it, see :mod:`web.targets`)."""
    board = dict(observation or {})
    hand = board.get("hand")
    if isinstance(hand, list) and "hands" not in board:
        # Solenia's observation names each card ({"id", "value", "text"}); the spectator's
        # view (what the template draws) has the text only.
        hand = [
            c["text"] if isinstance(c, dict) and game == "solenia" and "text" in c else c
            for c in hand
        ]
        board["hands"] = [hand if i == seat else None for i in range(players)]
    return board


def _board_view(view: human.SeatView) -> dict[str, Any]:
    return seat_board(view.observation, view.game, view.seat, view.players)


#: The move log keeps this many of the latest moves (a long Black Angel game has ~400).
LOG_MOVES = 500


def _who(seat: Any, view: human.SeatView) -> str:
    """A seat in the log: "you", or "player N (bot name)" — player 1..N, as the rulebooks."""
    if seat == view.seat:
        return "you"
    if isinstance(seat, int) and 0 <= seat < len(view.seat_names):
        return f"player {seat + 1} ({view.seat_names[seat]})"
    return "the game"


def move_log(view: human.SeatView, page: match_q.MatchPage | None = None) -> list[dict[str, Any]]:
    """The game's moves in words, oldest first, as the seat may know them: every seat's public
    choice and the public events it caused; another seat's hidden choice as "a hidden choice";
    the person's own hidden choice in words, marked private (from the seat's own row). While
    the game runs it is read from the public live stream; once it is over, from the public
    record (which names every choice)."""
    entries: list[dict[str, Any]] = []
    if page is not None and page.record and isinstance(page.record.get("decisions"), list):
        try:
            replay = replay_for(page)
            labels = replay.labels() if replay is not None else []
            decisions = replay.decisions if replay is not None else []
        except Exception:  # noqa: BLE001 - a record the engine cannot replay: no log, not a 500
            labels, decisions = [], []
        for i, d in enumerate(decisions):
            label = labels[i] if i < len(labels) else None
            entries.append({"n": i, "seat": d.seat, "who": _who(d.seat, view),
                            "words": plain(label or d.option_id), "private": False, "hidden": False,
                            "forced": d.forced, "events": [plain(e) for e in d.events]})
        return entries[-LOG_MOVES:]
    for d in _caught_up_log(view):
        mine = d.get("seat") == view.seat
        own = view.own_choices.get(d.get("n")) if mine else None
        hidden = bool(d.get("private_choice"))
        if hidden and own is not None:
            words = plain(own)
        elif hidden:
            words = "your hidden choice" if mine else "a hidden choice"
        else:  # in the board's words, as the finished game's log and the replay say it
            label = d.get("label") or own or d.get("option") or ""
            words = choice_words(view.game, str(d.get("option") or ""), label) if d.get("option") else plain(label)
        entries.append({"n": d.get("n"), "seat": d.get("seat"), "who": _who(d.get("seat"), view),
                        "words": words, "private": hidden and mine, "hidden": hidden and not mine,
                        "forced": d.get("forced"), "events": [plain(e) for e in d.get("events") or []]})
    return entries[-LOG_MOVES:]


#: How long a seat's page waits for the public stream to carry every move before the decision
#: it shows (the stream is sent in batches every 50 ms, after the referee asks the seat).
LOG_CATCH_UP_S = 0.6


def _caught_up_log(view: human.SeatView) -> list[dict[str, Any]]:
    """The public decisions up to the one waiting for the person: the referee numbers decisions
    in one sequence for every seat, so the log is whole when it reaches ``decision - 1``. The
    stream may lag the seat's row by a batch; wait a moment (bounded) rather than show the
    person a log without the move they must answer."""
    end = time.monotonic() + LOG_CATCH_UP_S
    while True:
        log = decision_log(view.match_id)
        newest = log[-1].get("n") if log else -1
        if view.decision is None or not isinstance(newest, int) or newest >= view.decision - 1:
            return log
        if time.monotonic() > end:
            return log
        time.sleep(0.05)


def last_moves(view: human.SeatView, log: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each opponent's latest move since the person's own last one, by seat: what the board
    marks until the person moves again (lichess's last-move squares, for every opponent)."""
    marks: dict[int, dict[str, Any]] = {}
    for entry in reversed(log):
        if entry["seat"] == view.seat:
            break
        if isinstance(entry["seat"], int) and entry["seat"] not in marks:
            marks[entry["seat"]] = entry
    return marks


#: Orbital's result ranks by these, in this order (its rulebook's end: VP, then population
#: icons on undamaged modules, then MC): its breakdown's columns.
ORBITAL_TIEBREAK = ("VP", "population on undamaged modules", "MC")


def score_breakdown(result: dict[str, Any] | None, names: list[str]) -> dict[str, Any] | None:
    """The end's score breakdown as the game's rulebook scores: a column a scoring category
    (Black Angel: the track, advanced tiles, conversion; Solenia: each category of its score
    pad; Orbital: VP and its tie-breaks), a row a player, the total last. None: no breakdown."""
    details = (result or {}).get("details") or {}
    scores = (result or {}).get("scores") or []
    ranks = (result or {}).get("ranks") or []
    parts = details.get("breakdown")
    if isinstance(parts, list) and parts and all(isinstance(p, dict) for p in parts):
        keys = [k for k in parts[0] if k != "total"]
        columns = [readable(k) for k in keys]
        values = [[p.get(k) for k in keys] for p in parts]
    elif isinstance(details.get("tiebreak"), list):
        columns = list(ORBITAL_TIEBREAK)
        values = [list(t) for t in details["tiebreak"]]
    else:
        return None
    rows = [
        {"seat": i, "name": names[i] if i < len(names) else f"player {i + 1}", "cells": v,
         "total": scores[i] if i < len(scores) else None, "rank": ranks[i] if i < len(ranks) else None}
        for i, v in enumerate(values[: len(names)])
    ]
    return {"columns": columns, "rows": rows}


def _end(view: human.SeatView, page: match_q.MatchPage | None) -> dict[str, Any]:
    """What the end shows beside the result: the final board (the record's last position; the
    seat's own observation is cleared when the game ends, and the record is public then), the
    score breakdown and "Play again" (same bots, seats rotated)."""
    if view.status != "done" or page is None:
        return {}
    out: dict[str, Any] = {
        "breakdown": score_breakdown(view.result, [n if n != "you" else "you" for n in view.seat_names]),
        "rematch": human.rematch(db(), view.match_id, view.seat),
        "final_scores": (view.result or {}).get("scores"),
    }
    try:
        replay = replay_for(page)
        if replay is not None:
            out["final_view"] = replay.step(replay.last).view
    except Exception:  # noqa: BLE001 - a record the engine cannot replay: the result still shows
        pass
    return out


@bp.get("/play/<match_id>/")
@bp.get("/play/<match_id>")
def seat(match_id: str) -> Any:
    """The person's seat: their observation, the board picture, the options as buttons."""
    view = _view(match_id)
    name = view.game if re.fullmatch(r"[a-z_]+", view.game) else "generic"
    page = (match_q.match_page(db(), match_id, account.viewer())
            if view.match_status in match_q.FINISHED else None)
    log = move_log(view, page)
    marks = last_moves(view, log)
    end = _end(view, page)
    response = make_response(
        render_template(
            "play.html",
            v=view,
            game=game_info(view.game),
            view=end.get("final_view") or _board_view(view),
            end=end,
            # each option with the board keys a person clicks to choose it (web/targets.py)
            choices=choices(view.game, view.seat, view.options, view.observation),
            log=log,
            marks=marks,
            # the board's player panels read a seat's name and, for an opponent who moved since
            # the person's last move, that move (the mark stays until the person moves again)
            seats=[{"name": n, "last_move": marks.get(i)} for i, n in enumerate(view.seat_names)],
            final_scores=end.get("final_scores"),
            board_template=f"boards/{name}.html",
            # The server's own message from the move just refused, kept in the signed session
            # cookie: a query string's text is never shown as the site's message.
            error=next(iter(get_flashed_messages(category_filter=[PLAY_ERROR])), None),
            now=time.time(),
            resigned=human.RESIGNED,
        )
    )
    response.cache_control.no_store = True
    return response


def _shown(view: human.SeatView) -> tuple[str, str]:
    """What the page shows of the seat: its status and the decision waiting ('' for none)."""
    return view.status, "" if view.decision is None else str(view.decision)


def _enter_long_poll(client: str) -> bool:
    """May a ``/state`` request of ``client`` wait? (Bounded in all and per client.)"""
    with _long_lock:
        if sum(_long_by_client.values()) >= LONG_POLL_WAITERS:
            return False
        if _long_by_client.get(client, 0) >= LONG_POLL_PER_CLIENT:
            return False
        _long_by_client[client] = _long_by_client.get(client, 0) + 1
        return True


def _leave_long_poll(client: str) -> None:
    with _long_lock:
        left = _long_by_client.get(client, 0) - 1
        if left > 0:
            _long_by_client[client] = left
        else:
            _long_by_client.pop(client, None)


def _wait_for_change(match_id: str, view: human.SeatView, seen: int, shown: tuple[str, str]) -> tuple[human.SeatView, int]:
    """Wait (up to :data:`LONG_POLL_S`) until the seat's status or decision is no longer
    ``shown`` or the match's change count is no longer ``seen``; returns the view and count
    then. The session is closed before each wait: no connection is held while waiting."""
    end = time.monotonic() + LONG_POLL_S
    count = seen
    while _shown(view) == shown and count == seen and view.status in human.LIVE_STATUSES:
        left = end - time.monotonic()
        if left <= 0:
            break
        db().close()
        if human.played_here(match_id):
            human.wait_for_change(match_id, seen, min(left, LONG_POLL_SAFETY_S))
        else:
            time.sleep(min(left, LONG_POLL_RECHECK_S))
        count = human.change_count(match_id)
        fresh = human.seat_view(db(), match_id, _secret(match_id))
        if fresh is None:
            break
        view = fresh
    return view, count


@bp.get("/play/<match_id>/state")
def state(match_id: str) -> Response:
    """Has anything changed for this seat? ``play.js`` asks with what its page shows
    (``status``, ``decision``) and the change count it last had (``seen``), and ``wait=1``: then
    the answer waits for a change (a long poll, see the module docstring). ``changes`` is the
    count to send next time; ``waited`` false says this request was not let wait (poll)."""
    count = human.change_count(match_id)
    view = _view(match_id)
    waited = refused = False
    if request.args.get("wait") == "1":
        shown = (request.args.get("status", ""), request.args.get("decision", ""))
        raw = request.args.get("seen", "")
        seen = int(raw) if raw.isdigit() and len(raw) < 12 else count
        if _shown(view) == shown and seen == count and view.status in human.LIVE_STATUSES:
            client = human.client_key(account.client_key())
            if _enter_long_poll(client):
                waited = True
                try:
                    view, count = _wait_for_change(match_id, view, seen, shown)
                finally:
                    _leave_long_poll(client)
            else:
                refused = True
    response = make_response(
        {
            "status": view.status,
            "decision": view.decision,
            "match_status": view.match_status,
            "deadline": view.deadline,
            "changes": count,
            "waited": waited,
            "retry_ms": FALLBACK_POLL_MS if refused else 0,
        }
    )
    response.cache_control.no_store = True
    return response


@bp.post("/play/<match_id>/choose")
def choose(match_id: str) -> Any:
    """The person clicked an option (a form post: works without JavaScript)."""
    _same_origin()
    if not _MATCH_ID.fullmatch(match_id):
        abort(404, description="There is no such game.")
    try:
        decision = int(request.form.get("decision", "-1"))
    except ValueError:
        decision = -1
    try:
        human.choose(_url(), match_id, _secret(match_id), decision, request.form.get("option", ""))
    except human.HumanGameError as exc:
        if _secret(match_id) is None:
            abort(403, description=str(exc))
        flash(str(exc), PLAY_ERROR)  # in the signed session, never in the URL
        return redirect(url_for("play.seat", match_id=match_id), code=303)
    if request.headers.get(POLLING_HEADER) != "1":
        _wait_for_bots(match_id)
    return redirect(url_for("play.seat", match_id=match_id), code=303)


def _wait_for_bots(match_id: str) -> None:
    """The bots usually answer at once: wait a moment for the next decision (or the end), so the
    page that follows a plain form post shows it — bounded (see the module's docstring)."""
    with _waiting_lock:
        if match_id in _waiting_seats:
            return
        if not _waiters.acquire(blocking=False):
            return
        _waiting_seats.add(match_id)
    try:
        end = time.monotonic() + CHOICE_WAIT_S
        while time.monotonic() < end:
            time.sleep(0.1)
            view = human.seat_view(db(), match_id, _secret(match_id))
            if view is None or view.status != "playing" or view.decision is not None:
                break
    finally:
        with _waiting_lock:
            _waiting_seats.discard(match_id)
        _waiters.release()


@bp.post("/play/<match_id>/resign")
def resign(match_id: str) -> Any:
    """The person leaves: the seat forfeits at once and the referee's fallback plays it out."""
    _same_origin()
    if not _MATCH_ID.fullmatch(match_id):
        abort(404, description="There is no such game.")
    try:
        human.resign(_url(), match_id, _secret(match_id))
    except human.HumanGameError as exc:
        if _secret(match_id) is None:
            abort(403, description=str(exc))
        flash(str(exc), PLAY_ERROR)  # in the signed session, never in the URL
        return redirect(url_for("play.seat", match_id=match_id), code=303)
    return redirect(url_for("play.seat", match_id=match_id), code=303)
