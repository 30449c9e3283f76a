"""The season pages: ``/seasons`` (every season, newest first) and ``/seasons/ID`` (its facts,
the steps it has passed, its standings — final once published, provisional before — and the
downloads), plus ``/seasons/ID/standings.csv|json``: the bytes ``arena season export`` writes.
Read-only and public, like the tournament pages; seasons are run with ``arena season``
(arena/cli/season.py, arena.competition.seasons). Each entered bot's page lists its seasons and
places through :func:`bot_places`.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template

from arena.competition import seasons
from arena.db.seasons import Season
from web.db import db
from web.games import game_info

bp = Blueprint("seasons", __name__)

#: What each status means, in the page's words.
STATUS_WORDS = {
    "open": "Open for entries",
    "frozen": "Submissions closed — versions frozen",
    "final": "Final evaluation being played",
    "done": "Final standings published",
}


@bp.get("/seasons")
def season_list():  # noqa: ANN201
    return render_template("seasons.html", seasons=seasons.briefs(db()), words=STATUS_WORDS)


def _season(season_id: int) -> Season:
    season = db().get(Season, season_id)
    if season is None:
        abort(404, description=f"There is no season number {season_id}.")
    return season


@bp.get("/seasons/<id:season_id>")
def season(season_id: int):  # noqa: ANN201
    s = _season(season_id)
    rows = seasons.standings(db(), s)
    return render_template(
        "season.html", s=s, rows=rows, game=game_info(s.game), words=STATUS_WORDS,
        steps=[(status, STATUS_WORDS[status], seasons.STATUSES.index(status) <= seasons.STATUSES.index(s.status))
               for status in seasons.STATUSES],
        formats=seasons.FORMATS,
    )


@bp.get("/seasons/<id:season_id>/standings.<any(csv, json):fmt>")
def season_export(season_id: int, fmt: str):  # noqa: ANN201
    """The standings as a download (final once published, else provisional: the JSON says which)."""
    s = _season(season_id)
    body = seasons.render(s, seasons.standings(db(), s), fmt)
    response = current_app.response_class(body, mimetype="text/csv" if fmt == "csv" else "application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="season-{season_id}-standings.{fmt}"'
    return response


def bot_places(bot_id: int) -> list[seasons.BotPlace]:
    """The seasons a bot entered and its places, for its page."""
    return seasons.places_of_bot(db(), bot_id)
