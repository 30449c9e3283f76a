"""The HTML pages. Each view gathers data through :mod:`web.queries` and renders one template."""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy import select

from arena.competition import export
from arena.db import Bot, Tournament
from arena.intake.house import HOUSE_OWNER
from arena.play.human import HUMAN_NAME
from arena.quoting import shorten
from arena.records.fork import command_for
from web import account, events
from web import glossary as glossary_terms
from web.chart import rating_chart
from web.db import db
from web.games import game_info, known_games
from web.ids import MAX_ID, parse_number
from web.live import live_state
from web.marks import live_moves, live_words, mark, step_moves
from web.queries import bots as bot_q
from web.queries import challenges as challenge_q
from web.queries import leaderboard as board_q
from web.queries import matches as match_q
from web.queries import tournaments as tour_q
from web.replay import Replay, ReplayError, Walk
from web.seasons import bot_places

bp = Blueprint("pages", __name__)

#: Game names become template names; anything else falls back to the generic renderer.
_SAFE_GAME = re.compile(r"[a-z0-9_]{1,50}")  # fullmatch: ``$`` also matches before a final "\n"


@bp.get("/glossary")
def glossary():  # noqa: ANN201
    """The words the site uses (μ, σ, provisional, anchors, forfeit reasons, seats, Buchholz …)."""
    return render_template("glossary.html", sections=glossary_terms.SECTIONS)


@bp.get("/")
def home():  # noqa: ANN201
    session = db()
    games = []
    pages = current_app.extensions["arena_board_pages"]
    for g in known_games(session):
        # the top five move only with the board's token: reuse them (the query sorts every
        # bot of the game, ~200 ms for two games of 5,000 bots on a busy machine)
        top = pages.get(
            f"top5:{g.name}",
            board_q.board_token(session, g.name),
            lambda name=g.name: board_q.leaderboard(session, name, wins=None, limit=5),
        )
        games.append({"info": g, "top": top})
    return render_template(
        "home.html",
        games=games,
        ladders=tour_q.ladders(session),
        running=tour_q.tournaments(session, status="running", limit=20),
    )


@bp.get("/games/<game>")
def leaderboard(game: str):  # noqa: ANN201
    session = db()
    if game not in {g.name for g in known_games(session)}:
        abort(404, description=f"There is no game called “{shorten(game)}” on this site.")
    token = board_q.board_token(session, game)

    def render() -> str:
        rows = board_q.leaderboard(session, game, current_app.extensions["arena_wins"])
        with account.shared_render():  # cached for everyone: no visitor's name in it
            return render_template("leaderboard.html", game=game_info(game), rows=rows)

    return account.fill_nav(current_app.extensions["arena_board_pages"].get(game, token, render))


@bp.get("/bots/<id:bot_id>")
def bot(bot_id: int):  # noqa: ANN201
    session = db()
    page = bot_q.bot_page(session, bot_id)
    if page is None:
        abort(404, description=f"There is no bot number {bot_id}.")
    chart = rating_chart([(p.mu, p.sigma) for p in page.history], [p.version for p in page.history])
    recent = match_q.history(session, match_q.HistoryFilter(bot=bot_id), page_size=15)
    # The Challenge form: for a signed-in author who is not this bot's owner, their active bots
    # of the same game (None: signed out, or their own bot — no form).
    user = account.current_user()
    challenge_with = None
    if user is not None and user.name != page.owner and page.active:
        challenge_with = challenge_q.challengers(session, user.name, page.game)
    return render_template(
        "bot.html", bot=page, game=game_info(page.game), chart=chart, recent=recent.rows,
        challenges=challenge_q.of_bot(session, bot_id), challenge_with=challenge_with,
        seasons=bot_places(bot_id),
    )


def _int_arg(name: str) -> int | None:
    """An id filter: None when absent, a FilterError (shown above the list) when it is not a
    number or no row can have it."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return None
    number = parse_number(raw)
    if number is None:
        raise match_q.FilterError(f"{name} must be a number, not “{shorten(raw)}”")
    if number > MAX_ID:
        raise match_q.FilterError(f"there is no {name} number {shorten(raw)}")
    return number


def _bot_arg(session, game: str | None) -> int | None:  # noqa: ANN001
    """The ``bot`` filter: a bot number, or a bot's name when exactly one bot has it."""
    raw = request.args.get("bot", "").strip()
    if not raw or parse_number(raw) is not None:
        return _int_arg("bot")
    query = select(Bot.id, Bot.owner, Bot.game).where(Bot.name == raw)
    if game:
        query = query.where(Bot.game == game)
    found = session.execute(query.limit(6)).all()
    # The person's seat (arena.play.human's pseudo-bot ``human`` of ``house``) is no bot to look up.
    people = [row for row in found if (row[1], raw) == (HOUSE_OWNER, HUMAN_NAME)]
    found = [row for row in found if row not in people]
    if not found and people:
        raise match_q.FilterError(
            f"“{HUMAN_NAME}” is the seat of a person playing in the browser, not a bot"
        )
    if not found:
        raise match_q.FilterError(f"no bot is called “{shorten(raw)}”")
    if len(found) > 1:
        which = ", ".join(f"number {i} ({owner}, {g})" for i, owner, g in found[:5])
        raise match_q.FilterError(f"several bots are called “{shorten(raw)}”: {which}; give its number")
    return int(found[0][0])


@bp.get("/matches")
def matches():  # noqa: ANN201
    session = db()
    error = None
    try:
        f = match_q.HistoryFilter(
            game=request.args.get("game") or None,
            bot=_bot_arg(session, request.args.get("game") or None),
            tournament=_int_arg("tournament"),
            outcome=request.args.get("outcome") or None,
            status=request.args.get("status") or None,
        )
        page = match_q.history(
            session, f, before=request.args.get("before"), after=request.args.get("after")
        )
    except match_q.FilterError as exc:
        error = str(exc)
        f = match_q.HistoryFilter(game=request.args.get("game") or None)
        page = match_q.HistoryPage([], None, None)
    bot_name = None
    if f.bot is not None:
        b = session.get(Bot, f.bot)
        bot_name = b.name if b else None
    return render_template(
        "matches.html",
        page=page,
        f=f,
        error=error,
        bot_name=bot_name,
        games=known_games(session),
        outcomes=match_q.OUTCOMES,
        statuses=match_q.STATUSES,
    )


def replay_for(page: match_q.MatchPage, walk: Walk | None = None) -> Replay | None:
    """The match's replay from the app's cache (None: no record yet); the seat's page reads
    its end's log from it too (web/play.py). A record the platform refuses to regenerate
    (``page.record_refused``) raises :class:`ReplayError` with the reason. ``walk``: the one
    :func:`match_page_with_walk` passed to the record's read."""
    if page.record_refused:
        raise ReplayError(page.record_refused)
    if not page.record or not isinstance(page.record.get("decisions"), list):
        return None
    cache = current_app.extensions["arena_replays"]
    return cache.get(page.id, page.record, walk)


def match_page_with_walk(session: Any, match_id: str) -> tuple[match_q.MatchPage | None, Walk | None]:
    """The match's page data, and the :class:`Walk` its record's read filled when it
    regenerated a compact record (issue 40: the replay viewer then needs no walk of its own for
    the event log's words, so a cold match page walks the engine once). No walk when the replay
    is cached. Only for a page that shows the words of every decision: the others (a step, the
    API's replay) need no walk, and gathering the words would cost more than it saves."""
    walk = current_app.extensions["arena_replays"].walk_for(match_id)
    return match_q.match_page(session, match_id, account.viewer(), walk=walk), walk


def _step_context(page: match_q.MatchPage, replay: Replay, index: int) -> dict:
    step = replay.step(index)
    name = page.game if _SAFE_GAME.fullmatch(page.game) else "generic"
    return {
        "step": step,
        # the board marks the move that led here, as /play and the live page mark moves
        "seats": mark(page.seats, step_moves(step)),
        "last": replay.last,
        "result": page.status == "done",
        "board_template": f"boards/{name}.html",
        "view": step.view,
        "to_move": step.to_move,
        # At the end the engine's result (final scoring, tie-breakers) is what the board shows.
        "final_scores": (step.result or {}).get("scores"),
        # An author tries another bot from this very position (``arena fork``).
        "fork_command": (command_for(page.id, step.index, step.to_move)
                         if step.to_move is not None and page.status == "done" else None),
    }


@bp.get("/matches/<match_id>")
def match(match_id: str):  # noqa: ANN201
    page, walk = match_page_with_walk(db(), match_id)
    if page is None:
        abort(404, description=f"There is no match “{shorten(match_id)}”.")
    replay, replay_error, ctx = None, None, {}
    try:
        replay = replay_for(page, walk)
        if replay is not None:
            asked = request.args.get("step")  # "end": the final result (where a live page hands over)
            index = replay.last if asked == "end" else parse_number(asked) or 0
            ctx = _step_context(page, replay, min(index, replay.last))
    except ReplayError as exc:
        replay, replay_error = None, str(exc)
    return render_template(
        "match.html",
        match=page,
        game=game_info(page.game),
        replay=replay,
        replay_error=replay_error,
        log=replay.decisions if replay else [],
        log_labels=replay.labels() if replay else [],
        step_url=url_for("pages.match_step", match_id=page.id, index=0)[:-1],
        **ctx,
    )


def _live_context(page: match_q.MatchPage) -> dict:
    name = page.game if _SAFE_GAME.fullmatch(page.game) else "generic"
    state = live_state(page.id, page.status)
    # the log's lines in the words the players read (the JSON API keeps the stream's ids)
    state = {**state, "log": [{**d, "words": live_words(page.game, d)} for d in state["log"]]}
    return {"live": state, "seats": mark(page.seats, live_moves(state["log"], page.game)), "view": state["view"] or {},
            "board_template": f"boards/{name}.html", "final_scores": None, "match": page}


@bp.get("/matches/<match_id>/live")
def match_live(match_id: str):  # noqa: ANN201
    """A running match, live: the public board and log, refreshed by polling (live.js)."""
    page = match_q.match_page(db(), match_id, account.viewer(), replay=False)  # no replay shown
    if page is None:
        abort(404, description=f"There is no match “{shorten(match_id)}”.")
    if page.status in match_q.FINISHED:
        return redirect(url_for("pages.match", match_id=match_id, step="end"))
    return render_template("live.html", game=game_info(page.game), **_live_context(page))


@bp.get("/matches/<match_id>/live/board")
def match_live_board(match_id: str):  # noqa: ANN201
    """The live board and log as an HTML fragment (what live.js swaps in)."""
    page = match_q.match_page(db(), match_id, account.viewer(), replay=False)
    if page is None:
        abort(404, description=f"There is no match “{shorten(match_id)}”.")
    response = make_response(render_template("_live.html", **_live_context(page)))
    response.headers["X-Match-Status"] = page.status
    response.cache_control.no_store = True
    return response


@bp.get("/matches/<match_id>/steps/<id:index>")
def match_step(match_id: str, index: int):  # noqa: ANN201
    """One replay step as an HTML fragment (the stepper swaps it in)."""
    session = db()
    page = match_q.match_page(session, match_id, account.viewer())
    if page is None:
        abort(404, description=f"There is no match “{shorten(match_id)}”.")
    try:
        # no Walk: a step needs no words, and its board is a few moves from the start (the
        # words of every decision would cost more than the walk they save)
        replay = replay_for(page)
        if replay is None:
            abort(404, description="This match has no replay yet.")
        if index > replay.last:
            abort(404, description=f"This match has only {replay.last} steps.")
        response = make_response(
            render_template("_step.html", **_step_context(page, replay, index))
        )
        if page.status == "done":
            # A finished match never changes: let the browser keep the steps it has seen.
            response.cache_control.public = True
            response.cache_control.max_age = 3600
        return response
    except ReplayError as exc:
        abort(500, description=f"The replay cannot be rebuilt: {exc}")


@bp.get("/tournaments")
def tournaments():  # noqa: ANN201
    return render_template("tournaments.html", tournaments=tour_q.tournaments(db()))


@bp.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: int):  # noqa: ANN201
    start = min(parse_number(request.args.get("from")) or 0, MAX_ID)
    page = tour_q.tournament_page(db(), tournament_id, start)
    if page is None:
        abort(404, description=f"There is no tournament number {tournament_id}.")
    row = db().get(Tournament, tournament_id)
    return render_template(
        "tournament.html", t=page.tournament, page=page, game=game_info(page.tournament.game),
        exports=[(table, fmt) for table in export.TABLES for fmt in export.FORMATS],
        event=events.public_event(row), entrant=events.entrant_view(row),
    )


@bp.get("/tournaments/<id:tournament_id>/<any(standings, pairings, results):table>.<any(csv, json):fmt>")
def tournament_export(tournament_id: int, table: str, fmt: str):  # noqa: ANN201
    """A download of the tournament's standings, pairings or results: the bytes
    ``arena tournament export`` writes (arena.competition.export)."""
    t = db().get(Tournament, tournament_id)
    if t is None:
        abort(404, description=f"There is no tournament number {tournament_id}.")
    body = export.render(export.tables(db(), t), table, fmt)
    mimetype = "text/csv" if fmt == "csv" else "application/json"
    response = current_app.response_class(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="tournament-{tournament_id}-{table}.{fmt}"'
    return response
