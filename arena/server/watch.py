"""WatchMatch: stream a match's events while it is played, then its whole record.

The events come from :mod:`arena.workers.live` (Redis or in-process); the record comes from the
database once the worker has stored it. A match that ends without an end marker reaching us (a
worker killed mid-match and the match replayed elsewhere, a broker restart) is still noticed,
because the stream checks the match's status in the database between events; once it says the
match is over, the stream reads on for the end marker (up to :data:`END_GRACE_S`), since the
worker sends its last held events after storing the record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from arena.db import Match, qualification_matches, session_scope
from arena.sdk.auth import token_from_metadata
from arena.server import results
from arena.server.accounts import find_user
from arena.server.errors import ApiError, check_request, not_found
from arena.server.streams import Follow
from arena.workers.live import LiveBus
from referee._proto import arena_pb2 as pb

FINISHED = ("done", "failed")
#: Seconds between database checks while no event arrives.
STATUS_POLL_S = 1.0
#: After the end marker, how long to wait for the worker to store the record.
RECORD_WAIT_S = 30.0
#: After the database says the match is over, how long to keep reading its events for the end
#: marker. The worker stores the record first and then sends its last held events with the
#: marker (arena.workers.tasks), so a watcher that stopped at the status would miss the final
#: decisions; a marker that never comes (a killed worker) costs this wait once.
END_GRACE_S = 5.0


def _status(url: str | None, match_id: str) -> str | None:
    with session_scope(url) as s:
        status = s.scalar(Match.__table__.select().with_only_columns(Match.status).where(Match.id == match_id))
        if status is None:  # a qualification match: its id is known once it is over
            qualification = qualification_matches.find(s, match_id)
            status = qualification.status if qualification is not None else None
        return status


def _record_event(url: str | None, match_id: str) -> pb.MatchEvent:
    with session_scope(url) as s:
        _, match = results.get_match(s, match_id)
    return pb.MatchEvent(kind=pb.MATCH_EVENT_KIND_RECORD, record_json=match.record_json)


def follow(url: str | None, request: pb.WatchMatchRequest, metadata: Sequence[tuple[str, Any]]) -> Follow:
    """What a WatchMatch request follows (:class:`arena.server.streams.Follow`): the full id of
    its match (a unique prefix resolved; unknown -> NOT_FOUND, ambiguous -> INVALID_ARGUMENT),
    a request carrying that id alone (whatever else the client appended is dropped), and the
    caller's account when it sends a token (a token that is not valid -> UNAUTHENTICATED, so a
    made-up token never counts as an account of its own)."""
    check_request(request)  # resolving runs before the handler: refuse a NUL here too
    token = token_from_metadata(metadata)
    with session_scope(url) as s:
        match_id = results.resolve_match_id(s, request.match_id)
        user = find_user(s, token) if token else None
        user_id = user.id if user is not None else None
    if token and user_id is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "the API token is not valid (unknown or revoked)")
    return Follow(match_id, pb.WatchMatchRequest(match_id=match_id),
                  None if user_id is None else f"user:{user_id}")


def watch(
    url: str | None, bus: LiveBus, match_id: str, context: grpc.ServicerContext
) -> Iterator[pb.MatchEvent]:
    with session_scope(url) as s:
        match_id = results.resolve_match_id(s, match_id)  # a unique prefix names its match
    status = _status(url, match_id)
    if status is None:
        raise not_found(f"no match with id {match_id!r}")
    if status in FINISHED:
        yield _record_event(url, match_id)
        return
    last_check = time.monotonic()
    stored = False
    stored_at = 0.0
    for event in bus.watch(match_id, poll_s=0.25):
        if not context.is_active():
            return
        if event is not None:
            seq = int(event.get("seq", 0))
            yield pb.MatchEvent(
                kind=pb.MATCH_EVENT_KIND_LIVE, seq=seq,
                event_json=json.dumps({k: v for k, v in event.items() if k != "seq"}, ensure_ascii=False),
            )
            if event.get("type") == "end":
                break
        if stored:
            if time.monotonic() - stored_at >= END_GRACE_S:
                break
        elif time.monotonic() - last_check >= STATUS_POLL_S:
            last_check = time.monotonic()
            if _status(url, match_id) in FINISHED:
                stored, stored_at = True, time.monotonic()
    # The end event (or marker) may arrive before the worker has stored the record.
    deadline = time.monotonic() + (0.0 if stored else RECORD_WAIT_S)
    while context.is_active():
        if _status(url, match_id) in FINISHED or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if context.is_active():
        yield _record_event(url, match_id)
