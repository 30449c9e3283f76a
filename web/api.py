"""The JSON API under ``/api/``: the same data as the pages (see web/API.md).

Errors are JSON too (``{"error", "message", "status"}``), so a script never has to parse HTML.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, request, url_for

from arena.quoting import shorten
from web.account import viewer
from web.db import db
from web.games import game_info, known_games
from web.ids import MAX_ID, parse_number
from web.live import live_state
from web.queries import bots as bot_q
from web.queries import challenges as challenge_q
from web.queries import jsonable
from web.queries import leaderboard as board_q
from web.queries import matches as match_q
from web.queries import tournaments as tour_q
from web.replay import ReplayError

bp = Blueprint("api", __name__)


@bp.get("/")
def index():  # noqa: ANN201
    return {
        "endpoints": {
            "games": url_for("api.games"),
            "leaderboard": url_for("api.leaderboard", game="GAME"),
            "bot": url_for("api.bot", bot_id=0).replace("/0", "/BOT_ID"),
            "matches": url_for("api.matches"),
            "match": url_for("api.match", match_id="MATCH_ID"),
            "match_record": url_for("api.match_record", match_id="MATCH_ID"),
            "match_live": url_for("api.match_live", match_id="MATCH_ID"),
            "replay": url_for("api.replay", match_id="MATCH_ID"),
            "replay_step": url_for("api.replay_step", match_id="MATCH_ID", index=0).replace(
                "/0", "/STEP"
            ),
            "tournaments": url_for("api.tournaments"),
            "tournament": url_for("api.tournament", tournament_id=0).replace("/0", "/ID"),
            "ladders": url_for("api.ladders"),
        },
        "docs": "web/API.md",
    }


@bp.get("/games")
def games():  # noqa: ANN201
    return {"games": jsonable(known_games(db()))}


@bp.get("/games/<game>/leaderboard")
def leaderboard(game: str):  # noqa: ANN201
    session = db()
    if game not in {g.name for g in known_games(session)}:
        abort(404, description=f"no game called {shorten(game)!r}")
    token = board_q.board_token(session, game)

    def render() -> str:
        # 5,000 rows a game: building and encoding them costs more than a page may take, and
        # they change only with the token, as the HTML leaderboard (same cache, own entries)
        rows = board_q.leaderboard(session, game, current_app.extensions["arena_wins"])
        return current_app.json.dumps({"game": jsonable(game_info(game)), "rows": jsonable(rows)})

    body = current_app.extensions["arena_board_pages"].get(f"api:{game}", token, render)
    return current_app.response_class(body, mimetype="application/json")


@bp.get("/bots/<id:bot_id>")
def bot(bot_id: int):  # noqa: ANN201
    page = bot_q.bot_page(db(), bot_id)
    if page is None:
        abort(404, description=f"no bot {bot_id}")
    return {**jsonable(page), "challenges": jsonable(challenge_q.of_bot(db(), bot_id))}


def _int_arg(name: str) -> int | None:
    """A number argument (None when absent; MAX_ID + 1 for any larger); 400 when it is not one."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return None
    number = parse_number(raw)
    if number is None:
        abort(400, description=f"{name} must be a number")
    return number


def _id_arg(name: str) -> int | None:
    """An id filter: as :func:`_int_arg`, and 404 for an id no row can have (as for a route's id)."""
    number = _int_arg(name)
    if number is not None and number > MAX_ID:
        abort(404, description=f"no {name} {shorten(request.args.get(name, '').strip())}")
    return number


@bp.get("/matches")
def matches():  # noqa: ANN201
    size = _int_arg("limit") or match_q.PAGE_SIZE
    f = match_q.HistoryFilter(
        game=request.args.get("game") or None,
        bot=_id_arg("bot"),
        tournament=_id_arg("tournament"),
        outcome=request.args.get("outcome") or None,
        status=request.args.get("status") or None,
    )
    try:
        page = match_q.history(
            db(),
            f,
            before=request.args.get("before"),
            after=request.args.get("after"),
            page_size=max(1, min(size, 200)),
        )
    except match_q.FilterError as exc:
        abort(400, description=str(exc))
    args = f.as_args()
    return {
        "matches": jsonable(page.rows),
        "newer": url_for("api.matches", after=page.newer, **args) if page.newer else None,
        "older": url_for("api.matches", before=page.older, **args) if page.older else None,
    }


def _match(match_id: str, replay: bool = True) -> match_q.MatchPage:
    page = match_q.match_page(db(), match_id, viewer(), replay)
    if page is None:
        abort(404, description=f"no match {shorten(match_id)!r}")
    return page


@bp.get("/matches/<match_id>")
def match(match_id: str):  # noqa: ANN201
    page = _match(match_id, replay=False)  # sends no record: a compact one is not regenerated
    data = jsonable(page)
    data.pop("record")
    if not data.get("record_refused"):
        data.pop("record_refused", None)
    data["record_url"] = url_for("api.match_record", match_id=match_id)
    data["replay_url"] = url_for("api.replay", match_id=match_id)
    return data


@bp.get("/matches/<match_id>/live")
def match_live(match_id: str):  # noqa: ANN201
    """A running match as spectators may see it: public lines, private choices without their
    id, the engine's public board. Poll it; when ``status`` is over, fetch the record."""
    page = _match(match_id, replay=False)
    data = live_state(match_id, page.status)
    if page.status in match_q.FINISHED:
        data["record_url"] = url_for("api.match_record", match_id=match_id)
    return data


@bp.get("/matches/<match_id>/record")
def match_record(match_id: str):  # noqa: ANN201
    page = _match(match_id)
    if page.record_refused:
        abort(409, description=page.record_refused)
    if page.record is None:
        abort(404, description="this match has no record yet")
    return page.record


def _replay(match_id: str):  # noqa: ANN202
    # no web.replay.Walk: neither the decisions nor a step need every decision's words
    page = _match(match_id)
    if page.record_refused:
        abort(409, description=page.record_refused)
    if not page.record or not isinstance(page.record.get("decisions"), list):
        abort(404, description="this match has no replay yet")
    try:
        return current_app.extensions["arena_replays"].get(page.id, page.record)
    except ReplayError as exc:
        abort(500, description=f"the replay cannot be rebuilt: {exc}")


@bp.get("/matches/<match_id>/replay")
def replay(match_id: str):  # noqa: ANN201
    """Every decision (seat, option, comment, time, events); boards are per step below."""
    r = _replay(match_id)
    return {
        "game": r.game,
        "steps": r.last + 1,
        "decisions": [d.to_json() for d in r.decisions],
        "step_url": url_for("api.replay_step", match_id=match_id, index=0)[:-1] + "{step}",
    }


@bp.get("/matches/<match_id>/replay/<id:index>")
def replay_step(match_id: str, index: int):  # noqa: ANN201
    """The spectator view after ``index`` decisions, and the decision that led there."""
    r = _replay(match_id)
    if index > r.last:
        abort(404, description=f"this match has steps 0..{r.last}")
    try:
        return r.step(index).to_json()
    except ReplayError as exc:
        abort(500, description=f"the replay cannot be rebuilt: {exc}")


@bp.get("/tournaments")
def tournaments():  # noqa: ANN201
    return {"tournaments": jsonable(tour_q.tournaments(db(), status=request.args.get("status")))}


@bp.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: int):  # noqa: ANN201
    start = min(_int_arg("from") or 0, MAX_ID)
    page = tour_q.tournament_page(db(), tournament_id, start)
    if page is None:
        abort(404, description=f"no tournament {tournament_id}")
    data = jsonable(page)
    data["schedule_next_url"] = (
        url_for("api.tournament", tournament_id=tournament_id, **{"from": page.schedule_next})
        if page.schedule_next is not None else None
    )
    return data


@bp.get("/ladders")
def ladders():  # noqa: ANN201
    return {"ladders": jsonable(tour_q.ladders(db()))}
