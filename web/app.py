"""The Flask application factory.

``create_app(database_url)`` is all a host needs: ``arena web`` and ``arena demo`` serve it, the
tests drive it with the test client and a real browser. The database defaults to the platform's
(``ARENA_DATABASE_URL`` or the per-user SQLite file), so the site shows what the CLI recorded.
"""

from __future__ import annotations

import gc
import math
from datetime import datetime
from typing import Any

from flask import Flask, abort, render_template, request
from werkzeug.exceptions import HTTPException

from arena.evaluation.ratings import CALIBRATED_SIGMA, PROVISIONAL_SIGMA
from arena.play.human import RESIGNED
from arena.quoting import MAX_MESSAGE, shorten
from web import account, events, labels, my_pages, option_words, organiser
from web.db import close_session, db, make_sessionmaker
from web.games import game_info, known_games
from web.ids import IdConverter
from web.orbital_board import COLOUR_TYPES, TYPE_ROLES, station_grid
from web.queries.leaderboard import PageCache, WinCache
from web.replay import ReplayCache


def create_app(database_url: str | None = None) -> Flask:
    app = Flask(__name__)
    app.url_map.converters["id"] = IdConverter  # every integer id in a route: see web/ids.py
    app.config.update(
        JSON_SORT_KEYS=False,
        TEMPLATES_AUTO_RELOAD=False,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.jinja_env.add_extension("jinja2.ext.do")
    app.extensions["arena_sessionmaker"] = make_sessionmaker(database_url)
    # Where the organisers' steps write (web/events.py, through arena.play.events); None: the
    # platform's default, as make_sessionmaker reads it.
    app.config["ARENA_DATABASE_URL"] = database_url
    app.extensions["arena_replays"] = ReplayCache()
    app.extensions["arena_wins"] = WinCache()
    app.extensions["arena_board_pages"] = PageCache()
    app.teardown_appcontext(close_session)

    from web import seasons as season_pages
    from web.api import bp as api_bp
    from web.challenge import bp as challenge_bp
    from web.local_replay import bp as local_replay_bp
    from web.pages import bp as pages_bp
    from web.play import bp as play_bp

    app.register_blueprint(pages_bp)
    app.register_blueprint(play_bp)  # /play: a person's seat (web/play.py)
    app.register_blueprint(local_replay_bp)
    app.register_blueprint(api_bp, url_prefix="/api")
    account.init_app(app, database_url)  # sign-in, sessions, CSRF (web/account.py)
    app.register_blueprint(my_pages.bp)  # the /me pages (web/my_pages.py)
    app.register_blueprint(organiser.bp)  # /organiser/…: organisers only (web/organiser.py)
    app.register_blueprint(events.bp)  # /organiser/events…, entrants' enter/withdraw (web/events.py)
    app.register_blueprint(challenge_bp)
    app.register_blueprint(season_pages.bp)  # /seasons (web/seasons.py)
    _register_filters(app)
    labels.register(app)
    option_words.register(app)
    # Everything alive now (modules, SQLAlchemy mappers, compiled templates' environment) lives
    # as long as the process. Moving it out of the collector's reach makes the full collections
    # a page view triggers cheap: without this, one request in ten paid a ~40 ms gen-2 pause
    # (measured by benchmarks/bench_web.py on the 500-row leaderboard).
    gc.freeze()

    @app.context_processor
    def _nav() -> dict[str, Any]:
        return {"nav_games": known_games(db())}

    @app.before_request
    def _no_nul():  # noqa: ANN202
        # PostgreSQL cannot compare a string holding NUL: the driver raised a 500 on every view
        # that looks up a name or id from the URL. Nothing on this site is named with one.
        if "\x00" in request.path:
            abort(404)
        if any("\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)):
            abort(400, description="a query argument contains a NUL character")

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):  # noqa: ANN202
        # Views quote input shortened (arena.quoting); this bounds any description that forgot.
        if exc.description and len(exc.description) > MAX_MESSAGE:
            exc.description = shorten(exc.description, MAX_MESSAGE)
        # /replay/view and /replay/step answer replay-file.js, which shows the message.
        if request.path.startswith(("/api/", "/replay/")):
            body = {"error": exc.name, "message": exc.description, "status": exc.code}
            retry = getattr(exc, "retry_after", None)  # 429/503 from web.request_limits
            return body, exc.code, ({"Retry-After": str(retry)} if retry is not None else {})
        return render_template("error.html", error=exc), exc.code

    @app.after_request
    def _security_headers(response):  # noqa: ANN001, ANN202
        # Defence in depth behind autoescaping: no inline script may ever run.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    return app


def hex_points(cx: float, cy: float, r: float, pointy: bool = True) -> str:
    """SVG polygon points of a regular hexagon (board renderers draw hex maps with it)."""
    start = 30 if pointy else 0
    pts = []
    for i in range(6):
        a = math.radians(start + 60 * i)
        pts.append(f"{cx + r * math.cos(a):.1f},{cy + r * math.sin(a):.1f}")
    return " ".join(pts)


def _register_filters(app: Flask) -> None:
    @app.template_filter("humanize")
    def humanize(key: object) -> str:
        return str(key).replace("_", " ")

    @app.template_filter("player")
    def player(seat: object) -> str:
        """A seat as the rulebooks number it: seat 0 is "player 1" (one numbering on every page)."""
        return f"player {seat + 1}" if isinstance(seat, int) else f"player {seat}"

    @app.template_filter("forfeit_word")
    def forfeit_word(reason: str | None, message: str | None = None, person: bool = False) -> str:
        """The forfeit as a person reads it: a person who resigned "resigned", though the record
        keeps the referee's reason (``bot_error`` with :data:`arena.play.human.RESIGNED`). Where
        the message is not at hand (a list of matches), ``person`` says the seat is a person's:
        a person's seat has no process to fail, so its only ``bot_error`` is the resignation."""
        if (message or "").endswith(RESIGNED) or (person and reason == "bot_error"):
            return "resigned"
        return str(reason or "")

    @app.template_filter("game_title")
    def game_title(name: str) -> str:
        """A game's name as its rulebook writes it (the engine's title), not its key."""
        return game_info(name).title

    @app.template_filter("score")
    def score(value: float | int | None) -> str:
        if value is None:
            return "—"
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        if float(value).is_integer():
            return str(int(value))
        return f"{value:.2f}"

    @app.template_filter("num")
    def num(value: float | None, digits: int = 2) -> str:
        return "—" if value is None else f"{value:.{digits}f}"

    @app.template_filter("pct")
    def pct(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.0f}%"

    @app.template_filter("when")
    def when(value: datetime | None) -> str:
        return "—" if value is None else value.strftime("%Y-%m-%d %H:%M")

    @app.template_filter("iso")
    def iso(value: datetime | None) -> str:
        return "" if value is None else value.isoformat()

    @app.template_filter("brief")
    def brief(value: object) -> str:
        """A rule effect or cost as one short line: ``{"vp": 2, "draw": "green"}`` → "vp 2 · draw green"."""
        if value is None:
            return "—"
        if isinstance(value, dict):
            return " · ".join(f"{str(k).replace('_', ' ')} {brief(v)}" for k, v in value.items())
        if isinstance(value, list | tuple):
            return ", ".join(brief(v) for v in value)
        if value is True:
            return "yes"
        if value is False:
            return "no"
        return str(value).replace("_", " ")

    @app.template_filter("nonzero")
    def nonzero(value: object) -> object:
        """A cost/resource dict without its zero entries (a tile costing 0 stone says nothing)."""
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if v not in (0, None, False)}
        return value

    app.jinja_env.globals["hexpts"] = hex_points
    app.jinja_env.globals["station_grid"] = station_grid
    # the bars the rating badges stand for, as the leaderboard's legend states them
    app.jinja_env.globals["provisional_sigma"] = f"{PROVISIONAL_SIGMA:g}"
    app.jinja_env.globals["calibrated_sigma"] = f"{CALIBRATED_SIGMA:g}"
    app.jinja_env.globals["orbital_types"] = COLOUR_TYPES
    app.jinja_env.globals["orbital_roles"] = TYPE_ROLES

    @app.template_filter("ms")
    def ms(value: float | None) -> str:
        if value is None:
            return "—"
        if value >= 10_000:
            return f"{value / 1000:.1f} s"
        return f"{value:.0f} ms"
