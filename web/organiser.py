"""The organisers' pages: ``/organiser/collusion`` — the collusion report of a game
(:mod:`arena.records.collusion`), the website's face of ``arena collusion``.

Only organisers see it (the role the server operator grants with ``arena organiser NAME``;
``users.role``): not signed in, the sign-in form (403); signed in without the role, 403. It names
authors and their results against each other, which is no secret, but a flag is a suspicion for
an organiser to look into, not a verdict to publish.

The form's numbers are read as numbers and bounded; a value that is not one is replaced by the
default and the page says so in its own words (it never shows what the query string said).
"""

from __future__ import annotations

import math

from flask import Blueprint, abort, render_template, request

from arena.db.accounts import ROLE_ORGANISER
from arena.records import collusion
from web.account import SignedIn, current_user, sign_in_required
from web.db import db
from web.games import game_info, known_games

bp = Blueprint("organiser", __name__)

#: Bounds of the form's numbers (the CLI's options take the same meaning).
MAX_MIN_GAMES = 100_000
MIN_THRESHOLD, MAX_THRESHOLD = 1e-12, 0.5


def _organiser() -> SignedIn:
    user = current_user()
    assert user is not None  # sign_in_required ran
    if user.role != ROLE_ORGANISER:
        abort(403, description="Only organisers see the collusion report (the server operator grants "
                               "the role with `arena organiser NAME`).")
    return user


def _number(name: str, default: float, low: float, high: float, whole: bool) -> tuple[float, bool]:
    """The query's ``name`` as a number within [low, high], else ``default``; and whether the
    query's value was refused."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return default, False
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        return default, True
    if not math.isfinite(value) or not low <= value <= high:
        return default, True
    return value, False


@bp.get("/organiser/collusion")
@sign_in_required
def collusion_page():  # noqa: ANN201
    _organiser()
    games = known_games(db())
    names = [g.name for g in games]
    game = request.args.get("game", "")
    notes = []
    if game not in names:
        if game:
            notes.append("That game is not played here: showing the first one.")
        game = names[0] if names else ""
    min_games, bad_games = _number("min_games", collusion.DEFAULT_MIN_GAMES, 1, MAX_MIN_GAMES, whole=True)
    threshold, bad_threshold = _number("threshold", collusion.DEFAULT_THRESHOLD, MIN_THRESHOLD, MAX_THRESHOLD,
                                       whole=False)
    if bad_games:
        notes.append(f"The minimum number of games is a whole number from 1 to {MAX_MIN_GAMES:,}: "
                     f"showing {collusion.DEFAULT_MIN_GAMES}.")
    if bad_threshold:
        notes.append(f"The threshold is a significance level from {MIN_THRESHOLD:g} to {MAX_THRESHOLD:g}: "
                     f"showing {collusion.DEFAULT_THRESHOLD:g}.")
    report = collusion.report(db(), game, int(min_games), threshold) if game else None
    return render_template(
        "organiser_collusion.html", games=games, game=game_info(game) if game else None, report=report,
        min_games=int(min_games), threshold=threshold, notes=notes, finite=math.isfinite,
    )
