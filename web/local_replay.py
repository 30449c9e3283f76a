"""/replay: watch a local match record (``arena play --out FILE``) in the site's replay viewer.

The page's script (``static/replay-file.js``) reads the chosen file in the browser and posts
its record to the stateless endpoints below, which replay it with the engine and answer with
the same HTML the public replay page shows: ``/replay/view`` the whole viewer at one step,
``/replay/step`` one step. Nothing is stored; :mod:`web.record_file` says what is posted.
A record file is public-at-end data (seed and every id), so it renders as a finished match.
"""

from __future__ import annotations

import re
import shlex

from flask import Blueprint, abort, render_template, request

from arena.records.fork import command_for
from web.account import client_key, csrf_exempt
from web.games import game_info
from web.marks import mark, step_moves
from web.record_file import MAX_REQUEST_BYTES, BadRecord, ReplayRequest, parse_request
from web.replay import Replay, ReplayError
from web.request_limits import REPLAYS

bp = Blueprint("local_replay", __name__)

_SAFE_GAME = re.compile(r"[a-z0-9_]{1,50}")


def _body() -> bytes:
    """The request body, refused with 413 past :data:`MAX_REQUEST_BYTES` (also when it is sent
    without a length, chunked: at most one byte more than the cap is read)."""
    too_large = f"the record is larger than {MAX_REQUEST_BYTES // 1024} KiB, the most this page replays"
    if request.content_length is not None and request.content_length > MAX_REQUEST_BYTES:
        abort(413, description=too_large)
    body = request.stream.read(MAX_REQUEST_BYTES + 1)
    if len(body) > MAX_REQUEST_BYTES:
        abort(413, description=too_large)
    return body


def _checked() -> tuple[ReplayRequest, Replay, int]:
    """The posted request, its replay and the step to show; any user mistake is a 400."""
    try:
        asked = parse_request(_body())
        replay = Replay(asked.record)
    except (BadRecord, ReplayError) as exc:
        abort(400, description=str(exc))
    index = replay.last if asked.step is None else min(asked.step, replay.last)
    return asked, replay, index


def _step_context(asked: ReplayRequest, replay: Replay, index: int) -> dict:
    """What ``_step.html`` needs, as the match page gives it for a finished match."""
    try:
        step = replay.step(index)
    except ReplayError as exc:
        abort(400, description=str(exc))
    game = asked.record["game"]
    name = game if _SAFE_GAME.fullmatch(game) else "generic"
    return {
        "step": step,
        "seats": mark(asked.seats, step_moves(step)),  # the move that led here, as the match page marks it
        "last": replay.last,
        "result": any(s.score is not None for s in asked.seats),
        "board_template": f"boards/{name}.html",
        "view": step.view,
        "to_move": step.to_move,
        "final_scores": (step.result or {}).get("scores"),
        "fork_command": (command_for(shlex.quote(asked.file_name), step.index, step.to_move)
                         if step.to_move is not None else None),
    }


@bp.get("/replay")
def open_file():  # noqa: ANN201
    """The page with the file picker; the viewer appears once a file is read."""
    return render_template("replay_file.html", max_kib=MAX_REQUEST_BYTES // 1024)


@bp.post("/replay/view")
@csrf_exempt  # reads no session, changes nothing: see web/account.py
def view():  # noqa: ANN201
    """The whole viewer (summary, stepper, step, event log) for a posted record."""
    with REPLAYS.replay(client_key()):
        return _view()


def _view():  # noqa: ANN202
    asked, replay, index = _checked()
    # Every id is checked once, here (one walk to the end, ~10 ms for a long game): the viewer's
    # steps then never meet an illegal one.
    _step_context(asked, replay, replay.last)
    labels = replay.labels()
    context = _step_context(asked, replay, index)
    return render_template(
        "_replay_file_view.html",
        game=game_info(asked.record["game"]),
        record=asked.record,
        file_name=asked.file_name,
        match_id=asked.match_id,
        replay=replay,
        log=replay.decisions,
        log_labels=labels,
        step_url="",
        **context,
    )


@bp.post("/replay/step")
@csrf_exempt  # reads no session, changes nothing: see web/account.py
def step():  # noqa: ANN201
    """One step of a posted record, as the fragment a match page's stepper swaps in."""
    with REPLAYS.replay(client_key()):
        asked, replay, index = _checked()
        return render_template("_step.html", **_step_context(asked, replay, index))
