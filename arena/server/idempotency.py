"""Client request ids: a retried Register, SubmitBot or RegisterRemoteBot (say after a timeout
whose reply was lost) does the work once.

A client may put a ``request_id`` (8-100 printable characters, e.g. a random UUID) in those
requests. Only its SHA-256 is stored (table ``api_requests``), scoped by call and by the user
name (Register) or the caller (submissions). A submission reserves its id before the work
starts, so two concurrent copies cannot both create a version: the second is told to try again
(ABORTED) and, once the first has finished, gets the first one's answer.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import grpc
from sqlalchemy import delete, select, update

from arena.db import session_scope
from arena.db.accounts import ApiRequest, User
from arena.server.errors import ApiError, invalid

#: Matched with fullmatch: ``$`` would also match before a final newline.
REQUEST_ID = re.compile(r"[\x21-\x7e]{8,100}")
SUBMIT = "submit"


def request_hash(request_id: str) -> str | None:
    """The stored form of a request id (None when the request carries none)."""
    if not request_id:
        return None
    if not REQUEST_ID.fullmatch(request_id):
        raise invalid("request_id must be 8-100 printable ASCII characters without spaces (a random UUID is best)")
    return hashlib.sha256(request_id.encode()).hexdigest()


def once(url: str | None, user: User, request_id: str, work: Callable[[], int]) -> int:
    """Run ``work`` (which returns a submission id) once per ``request_id`` of ``user``; a repeat
    returns the first call's submission id without running it again."""
    digest = request_hash(request_id)
    if digest is None:
        return work()
    key = (ApiRequest.call == SUBMIT, ApiRequest.scope == str(user.id), ApiRequest.request_hash == digest)
    with session_scope(url) as s:
        seen = s.scalar(select(ApiRequest).where(*key))
        if seen is not None:
            if seen.submission_id is None:
                raise ApiError(grpc.StatusCode.ABORTED,
                               "the first call with this request_id is still being handled; try again shortly")
            return seen.submission_id
        s.add(ApiRequest(call=SUBMIT, scope=str(user.id), request_hash=digest, user_id=user.id))
    try:
        sub_id = work()
    except BaseException:
        with session_scope(url) as s:  # nothing was created: the id may be used again
            s.execute(delete(ApiRequest).where(*key))
        raise
    with session_scope(url) as s:
        s.execute(update(ApiRequest).where(*key).values(submission_id=sub_id))
    return sub_id
