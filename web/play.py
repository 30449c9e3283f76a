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

The site serves with a few threads (``web.command``: 8), so a click never holds one for long:
a click sent by ``play.js`` returns at once (the page polls), and a plain form post waits up to
:data:`CHOICE_WAIT_S` for the bots' moves only if no other click of that seat is waiting and
fewer than :data:`CHOICE_WAITERS` clicks wait in this process — otherwise it returns at once
too. However many posts one client sends, at most :data:`CHOICE_WAITERS` threads wait.
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

bp = Blueprint("play", __name__)

_MATCH_ID = re.compile(r"[0-9a-f]{32}")
#: At most this many seats (the games' largest table is five).
MAX_SEATS = 5
#: After a plain form post (no JavaScript), wait up to this long for the bots' moves before
#: showing the page again, so it shows the next decision rather than "the others are moving".
CHOICE_WAIT_S = 2.0
#: At most this many clicks wait so in this process at once (one per seat); the others return
#: at once. The site serves with 8 threads: waiting clicks can never take most of them.
CHOICE_WAITERS = 2
#: The header ``play.js`` sends with a click: it polls, so the click need not wait.
POLLING_HEADER = "X-Play-Polling"
#: The flash category of a refused move's message, shown once on the seat page that follows.
PLAY_ERROR = "play-error"

_waiters = threading.BoundedSemaphore(CHOICE_WAITERS)
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


def _board_view(view: human.SeatView) -> dict[str, Any]:
    """The seat's observation shaped as the board templates read a view: the seat's own hand
    (and Orbital's peek) where a spectator view keeps every seat's, the others' left out."""
    board = dict(view.observation or {})
    hand = board.get("hand")
    if isinstance(hand, list) and "hands" not in board:
        # Solenia's observation names each card ({"id", "value", "text"}); the spectator's
        # view (what the template draws) has the text only.
        hand = [
            c["text"] if isinstance(c, dict) and view.game == "solenia" and "text" in c else c
            for c in hand
        ]
        board["hands"] = [hand if i == view.seat else None for i in range(view.players)]
    return board


@bp.get("/play/<match_id>/")
@bp.get("/play/<match_id>")
def seat(match_id: str) -> Any:
    """The person's seat: their observation, the board picture, the options as buttons."""
    view = _view(match_id)
    name = view.game if re.fullmatch(r"[a-z_]+", view.game) else "generic"
    response = make_response(
        render_template(
            "play.html",
            v=view,
            game=game_info(view.game),
            view=_board_view(view),
            seats=[{"name": n} for n in view.seat_names],
            final_scores=None,
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


@bp.get("/play/<match_id>/state")
def state(match_id: str) -> Response:
    """What ``play.js`` polls: has anything changed for this seat?"""
    view = _view(match_id)
    response = make_response(
        {
            "status": view.status,
            "decision": view.decision,
            "match_status": view.match_status,
            "deadline": view.deadline,
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
