"""A signed-in author's own pages: ``/me`` (their bots), ``/me/bots/<id>`` (one bot's uploads,
qualification verdicts with crash logs, SPRT runs, matches) and ``/me/bots/<id>/matches/<match>``
(that bot's faults and stderr tail in one match).

Only the bot's owner sees them: anyone else gets 403 (not signed in: with the sign-in form), a
bot or match that does not exist 404. Organisers read other people's logs through the API.
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request
from sqlalchemy import select

from arena.db import Bot
from arena.quoting import shorten
from web.account import SignedIn, current_user, sign_in_required
from web.db import db
from web.games import game_info
from web.queries import account as my_q
from web.queries import bots as bot_q
from web.queries import matches as match_q

bp = Blueprint("me", __name__)

#: Matches listed on a bot's private page at a time (older ones page by cursor).
MATCHES_PER_PAGE = 25


def _user() -> SignedIn:
    user = current_user()
    assert user is not None  # sign_in_required ran
    return user


def _my_bot(bot_id: int) -> tuple[int, str, str, str]:
    """The bot's (id, name, owner, game), if the signed-in user owns it: else 404 / 403."""
    row = (
        db().execute(select(Bot.id, Bot.name, Bot.owner, Bot.game).where(Bot.id == bot_id)).first()
    )
    if row is None:
        abort(404, description=f"There is no bot number {bot_id}.")
    if row[2] != _user().name:
        abort(
            403, description=f"Bot {bot_id} is not yours: only its owner sees its logs and uploads."
        )
    return row[0], row[1], row[2], row[3]


@bp.get("/me")
@sign_in_required
def me():  # noqa: ANN201
    user = _user()
    return render_template("me.html", user=user, bots=my_q.my_bots(db(), user.name))


@bp.get("/me/bots/<id:bot_id>")
@sign_in_required
def my_bot(bot_id: int):  # noqa: ANN201
    bid, name, owner, game = _my_bot(bot_id)
    session = db()
    page = bot_q.bot_page(session, bid)
    error = None
    try:
        history = match_q.history(
            session,
            match_q.HistoryFilter(bot=bid),
            before=request.args.get("before"),
            after=request.args.get("after"),
            page_size=MATCHES_PER_PAGE,
        )
    except match_q.FilterError as exc:
        error = str(exc)
        history = match_q.HistoryPage([], None, None)
    return render_template(
        "my_bot.html",
        bot=page,
        game=game_info(game),
        uploads=my_q.uploads(session, bid),
        sprt=my_q.sprt_runs(session, bid),
        matches=history,
        error=error,
    )


@bp.get("/me/bots/<id:bot_id>/matches/<match_id>")
@sign_in_required
def my_match(bot_id: int, match_id: str):  # noqa: ANN201
    bid, name, _owner, game = _my_bot(bot_id)
    found = my_q.my_match(db(), bid, match_id)
    if found is None:
        abort(404, description=f"{shorten(name)} did not play a match “{shorten(match_id)}”.")
    return render_template(
        "my_match.html", bot_id=bid, bot_name=name, game=game_info(game), m=found
    )
