"""``POST /bots/<id>/challenge``: what the bot page's "Challenge" button calls.

The form names the signed-in author's bot that challenges this one (field ``bot``, its id) and
whether the match is rated (field ``rated``: ``1``/``on``; absent: unrated). The challenge itself
is :func:`arena.play.challenges.challenge`, with the signed-in user's id: the same checks and caps
as the ``ChallengeBot`` call. Success answers 303 to the new match's page; a refusal answers its
one-line reason with 404 (unknown bot), 403 (not your bot), 400 (same account, another game),
409 (a bot not active or not connected) or 429 with ``Retry-After`` (a cap).

Who is signed in comes from :mod:`web.account` (``current_user()``), which also checks every
POST's CSRF token. Without a broker the
website does not play matches: it stores the challenge, and ``arena serve`` plays it within
``ARENA_LADDER_TICK`` seconds (:mod:`arena.play.challenges`).
"""

from __future__ import annotations

from flask import Blueprint, abort, redirect, request, url_for
from werkzeug.exceptions import TooManyRequests
from werkzeug.wrappers import Response

from arena.play import challenges
from web.account import current_user
from web.ids import MAX_ID, parse_number

bp = Blueprint("challenge", __name__)

#: HTTP status of each kind of refusal (arena.play.challenges.ChallengeRefused.kind).
STATUS = {"not_found": 404, "denied": 403, "invalid": 400, "unavailable": 409}


@bp.post("/bots/<id:bot_id>/challenge")
def challenge(bot_id: int) -> Response:
    user = current_user()
    if user is None:
        abort(401, description="sign in to challenge a bot")
    raw = request.form.get("bot", "").strip()
    mine = parse_number(raw)
    if mine is None or mine > MAX_ID:
        abort(400, description="choose which of your bots challenges (form field bot: its id)")
    rated = request.form.get("rated", "").strip().lower() in ("1", "on", "true", "yes")
    try:
        made = challenges.challenge(user.id, mine, bot_id, rated, plays_matches=False)
    except challenges.ChallengeRefused as exc:
        if exc.kind == "exhausted":
            raise TooManyRequests(description=exc.message, retry_after=exc.retry_after_s) from None
        abort(STATUS.get(exc.kind, 409), description=exc.message)
    return redirect(url_for("pages.match", match_id=made.match_id), code=303)
