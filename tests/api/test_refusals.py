"""Refusals over a real socket: each is a clear gRPC status and message, the server keeps
serving, and nothing is left half-written in the database or the data directory."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from sqlalchemy import func, select

from arena.db import Bot, BotVersion, Match, Tournament, session_scope
from arena.db.accounts import Submission, User
from arena.sdk.auth import auth_metadata
from referee._proto import arena_pb2 as pb
from tests.api.archives import EXPECTED_KIND, GOOD_BOT, UNSAFE, tar_bot
from tests.api.conftest import TEST_LIMITS, new_account

CRASHING_BOT = b"""import os
import sys
from arena.sdk import serve_bot

def act(observation, legal_options):
    print("about to fail on purpose", file=sys.stderr, flush=True)
    os._exit(7)

if __name__ == "__main__":
    serve_bot(act)
"""

DIES_AT_START = b"""import sys
print("Traceback (most recent call last):", file=sys.stderr)
print("ZeroDivisionError: my bot divides by zero at import", file=sys.stderr, flush=True)
sys.exit(1)
"""

ILLEGAL_BOT = b"""from arena.sdk import serve_bot

def act(observation, legal_options):
    return "no-such-option"

if __name__ == "__main__":
    serve_bot(act)
"""

SLOW_BOT = b"""import time
from arena.sdk import serve_bot

def act(observation, legal_options):
    time.sleep(30)
    return legal_options[0].id

if __name__ == "__main__":
    serve_bot(act)
"""


def snapshot(server) -> tuple:  # noqa: ANN001
    """Row counts of every table a refused call could touch, and the files under bots/."""
    with session_scope(server.servicer.url) as s:
        counts = tuple(s.scalar(select(func.count()).select_from(t)) for t in (User, Bot, BotVersion, Submission, Tournament, Match))
    bots_dir: Path = server.servicer.config.bots_dir
    files = sorted(str(p.relative_to(bots_dir)) for p in bots_dir.rglob("*")) if bots_dir.exists() else []
    return counts, files


def assert_serving(server, stub) -> None:  # noqa: ANN001
    channel = grpc.insecure_channel(server.address)
    try:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="tabletop.arena.v1.Arena"), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        channel.close()
    stub.ListBots(pb.ListBotsRequest(), timeout=5)


def refused(call, request, code: grpc.StatusCode, *, metadata=(), contains: str = "") -> str:  # noqa: ANN001
    with pytest.raises(grpc.RpcError) as info:
        call(request, metadata=metadata, timeout=30)
    assert info.value.code() == code, info.value.details()
    details = info.value.details()
    assert details and "Traceback" not in details
    assert contains.lower() in details.lower(), details
    return details


# --- tokens ----------------------------------------------------------------------------------------

def test_calls_that_change_something_need_a_valid_token(server, stub) -> None:  # noqa: ANN001
    before = snapshot(server)
    submit = pb.SubmitBotRequest(name="tokenless", game="toy", archive=tar_bot(), wait=True)
    refused(stub.SubmitBot, submit, grpc.StatusCode.UNAUTHENTICATED, contains="needs an API token")
    refused(stub.SubmitBot, submit, grpc.StatusCode.UNAUTHENTICATED,
            metadata=auth_metadata("arena_forged-token"), contains="not valid")
    refused(stub.SubmitBot, submit, grpc.StatusCode.UNAUTHENTICATED,
            metadata=(("authorization", "Bearer "),), contains="needs an API token")
    refused(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="remote1", game="toy", address="127.0.0.1:1"),
            grpc.StatusCode.UNAUTHENTICATED)
    refused(stub.DeactivateBot, pb.DeactivateBotRequest(bot_id=1), grpc.StatusCode.UNAUTHENTICATED)
    refused(stub.CreateTournament, pb.CreateTournamentRequest(game="toy", players=2), grpc.StatusCode.UNAUTHENTICATED)
    refused(stub.StartLadder, pb.StartLadderRequest(game="toy"), grpc.StatusCode.UNAUTHENTICATED)
    refused(stub.WhoAmI, pb.WhoAmIRequest(), grpc.StatusCode.UNAUTHENTICATED, metadata=auth_metadata("nope"))
    assert snapshot(server) == before
    assert_serving(server, stub)


def test_token_is_shown_once_and_stored_only_hashed(server, stub) -> None:  # noqa: ANN001
    reply = stub.Register(pb.RegisterRequest(name="hashcheck"))
    assert reply.token.startswith("arena_") and len(reply.token) > 40
    with session_scope(server.servicer.url) as s:
        user = s.scalar(select(User).where(User.name == "hashcheck"))
        assert user.token_hash != reply.token and reply.token not in user.token_hash
    who = stub.WhoAmI(pb.WhoAmIRequest(), metadata=auth_metadata(reply.token))
    assert (who.name, who.role) == ("hashcheck", "user")
    refused(stub.Register, pb.RegisterRequest(name="hashcheck"), grpc.StatusCode.ALREADY_EXISTS, contains="taken")


def test_organiser_only_calls_are_refused_for_plain_users(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    before = snapshot(server)
    refused(stub.CreateTournament, pb.CreateTournamentRequest(name="t", game="toy", players=2),
            grpc.StatusCode.PERMISSION_DENIED, metadata=user.meta, contains="not an organiser")
    refused(stub.StartLadder, pb.StartLadderRequest(game="toy"), grpc.StatusCode.PERMISSION_DENIED,
            metadata=user.meta, contains="not an organiser")
    refused(stub.StopLadder, pb.StopLadderRequest(game="toy"), grpc.StatusCode.PERMISSION_DENIED, metadata=user.meta)
    assert snapshot(server) == before


# --- someone else's bot ---------------------------------------------------------------------------------

def test_only_the_owner_changes_a_bot(server, stub) -> None:  # noqa: ANN001
    alice, mallory = new_account(stub, "alice"), new_account(stub, "mallory")
    reply = stub.SubmitBot(pb.SubmitBotRequest(name="alices-bot", game="toy", archive=tar_bot(), wait=True), metadata=alice.meta)
    assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
    before = snapshot(server)
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="alices-bot", game="toy", archive=tar_bot(), wait=True),
            grpc.StatusCode.PERMISSION_DENIED, metadata=mallory.meta, contains="belongs to another user")
    refused(stub.DeactivateBot, pb.DeactivateBotRequest(bot_id=reply.bot.bot.id), grpc.StatusCode.PERMISSION_DENIED,
            metadata=mallory.meta, contains="only its owner")
    assert snapshot(server) == before
    detail = stub.GetBot(pb.GetBotRequest(bot_id=reply.bot.bot.id))
    assert detail.bot.active and detail.bot.owner == alice.name
    # The owner can.
    detail = stub.DeactivateBot(pb.DeactivateBotRequest(bot_id=reply.bot.bot.id), metadata=alice.meta)
    assert not detail.bot.active


# --- unsafe archives -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(UNSAFE))
def test_each_unsafe_archive_is_refused_over_grpc(server, stub, kind: str) -> None:  # noqa: ANN001
    user = new_account(stub)
    n = 4 * TEST_LIMITS.max_unpacked_bytes if kind.endswith("bomb") else TEST_LIMITS.max_files + 5
    data = UNSAFE[kind](n)
    before = snapshot(server)
    request = pb.SubmitBotRequest(name=f"unsafe-{kind}"[:40], game="toy", archive=data, wait=True)
    details = refused(stub.SubmitBot, request, grpc.StatusCode.INVALID_ARGUMENT, metadata=user.meta,
                      contains=f"({EXPECTED_KIND[kind]})")
    assert "archive refused" in details
    # Machine-readable too: a google.rpc.Status with an ErrorInfo naming the rule and a
    # BadRequest naming the field, read the way any gRPC language reads them.
    with pytest.raises(grpc.RpcError) as info:
        stub.SubmitBot(request, metadata=user.meta, timeout=30)
    status = rpc_status.from_call(info.value)
    assert status is not None and status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    found = {}
    for packed in status.details:
        for cls in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
            if packed.Is(cls.DESCRIPTOR):
                found[cls.__name__] = cls()
                packed.Unpack(found[cls.__name__])
    assert found["ErrorInfo"].reason == "UNSAFE_ARCHIVE"
    assert found["ErrorInfo"].metadata["kind"] == EXPECTED_KIND[kind]
    assert [v.field for v in found["BadRequest"].field_violations] == ["archive"]
    assert snapshot(server) == before
    assert_serving(server, stub)


def test_oversized_message_is_refused_by_the_transport(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    before = snapshot(server)
    huge = b"\0" * (server.servicer.config.max_message_bytes + 1024)
    details = refused(stub.SubmitBot, pb.SubmitBotRequest(name="huge", game="toy", archive=huge),
                      grpc.StatusCode.RESOURCE_EXHAUSTED, metadata=user.meta)
    assert "larger than max" in details.lower() or "message" in details.lower()
    # Under the transport limit but over the archive cap: refused by the upload check instead.
    big = b"\x1f\x8b" + b"\0" * (TEST_LIMITS.max_archive_bytes + 10)
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="big", game="toy", archive=big), grpc.StatusCode.INVALID_ARGUMENT,
            metadata=user.meta, contains="archive_too_large")
    assert snapshot(server) == before
    assert_serving(server, stub)


# --- malformed requests ------------------------------------------------------------------------------------

def test_malformed_requests_get_invalid_argument_or_not_found(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    before = snapshot(server)
    bad = grpc.StatusCode.INVALID_ARGUMENT
    refused(stub.Register, pb.RegisterRequest(name=""), bad, contains="user name")
    refused(stub.Register, pb.RegisterRequest(name="a b/c"), bad, contains="user name")
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="ok-name", game="chess", archive=tar_bot()), bad,
            metadata=user.meta, contains="unknown game")
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="ok-name", game="", archive=tar_bot()), bad,
            metadata=user.meta, contains="no game")
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="../../etc", game="toy", archive=tar_bot()), bad,
            metadata=user.meta, contains="bot name")
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="empty", game="toy", archive=b""), bad,
            metadata=user.meta, contains="empty")
    refused(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="remote", game="toy", address="not an address"), bad,
            metadata=user.meta, contains="host:port")
    refused(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="remote", game="toy", address="host:99999"), bad,
            metadata=user.meta, contains="host:port")
    refused(stub.GetBot, pb.GetBotRequest(bot_id=0), bad, contains="bot_id")
    refused(stub.GetBot, pb.GetBotRequest(bot_id=999999), grpc.StatusCode.NOT_FOUND, contains="no bot")
    refused(stub.GetVersionStatus, pb.GetVersionStatusRequest(bot_id=-3), bad)
    refused(stub.GetLeaderboard, pb.GetLeaderboardRequest(game="chess"), bad, contains="unknown game")
    refused(stub.ListMatches, pb.ListMatchesRequest(page_token="%%%garbage"), bad, contains="page_token")
    refused(stub.ListMatches, pb.ListMatchesRequest(status="exploded"), bad, contains="status")
    refused(stub.GetMatch, pb.GetMatchRequest(match_id=""), bad, contains="match_id")
    refused(stub.GetMatch, pb.GetMatchRequest(match_id="f" * 32), grpc.StatusCode.NOT_FOUND)
    refused(stub.GetTournament, pb.GetTournamentRequest(tournament_id=0), bad)
    refused(stub.GetTournament, pb.GetTournamentRequest(tournament_id=4242), grpc.StatusCode.NOT_FOUND)
    refused(stub.GetRatingHistory, pb.GetRatingHistoryRequest(bot_id=777777), grpc.StatusCode.NOT_FOUND)
    with pytest.raises(grpc.RpcError) as info:
        next(iter(stub.WatchMatch(pb.WatchMatchRequest(match_id="0" * 32), timeout=10)))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert snapshot(server) == before
    assert_serving(server, stub)


def test_bytes_that_are_not_a_protobuf_message_are_refused(server, stub) -> None:  # noqa: ANN001
    channel = grpc.insecure_channel(server.address)
    try:
        raw = channel.unary_unary("/tabletop.arena.v1.Arena/GetLeaderboard")
        with pytest.raises(grpc.RpcError) as info:
            raw(b"\xff\xff\xff\xff\x0f garbage", timeout=5)
        assert info.value.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT)
    finally:
        channel.close()
    assert_serving(server, stub)


# --- qualification refusals ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "kind", "log_says"),
    [
        (CRASHING_BOT, "crash", "about to fail on purpose"),
        (DIES_AT_START, "start_failed", "ZeroDivisionError: my bot divides by zero"),
        (ILLEGAL_BOT, "illegal_option", ""),
        (SLOW_BOT, "timeout", ""),
    ],
    ids=["crash-in-act", "crash-at-start", "illegal-move", "timeout"],
)
def test_a_faulty_bot_is_refused_in_qualification_with_the_reason(server, stub, source, kind, log_says) -> None:  # noqa: ANN001
    user = new_account(stub)
    reply = stub.SubmitBot(
        pb.SubmitBotRequest(name=f"faulty-{user.name}", game="toy", archive=tar_bot({"bot.py": source}), wait=True),
        metadata=user.meta, timeout=60,
    )
    version = reply.version
    assert version.status == pb.VERSION_STATUS_REFUSED
    assert version.refusal.kind == kind, version.refusal.message
    # One vocabulary: the enum names the same fault as the string.
    assert pb.FaultReason.Name(version.refusal.fault) == "FAULT_REASON_" + kind.upper()
    assert version.refusal.message
    assert log_says in version.refusal.log_tail
    # The follow-up status call says the same; the bot has no playable version and is inactive.
    status = stub.GetVersionStatus(pb.GetVersionStatusRequest(bot_id=version.bot_id, number=version.number))
    assert status.status == pb.VERSION_STATUS_REFUSED and status.refusal.kind == kind
    record = json.loads(status.qualification_record_json)
    assert record["match_id"] == status.refusal.match_id
    assert [f["seat"] for f in record["forfeits"]] == [0]
    assert not reply.bot.bot.active and reply.bot.bot.active_version == 0
    with session_scope(server.servicer.url) as s:
        assert s.scalar(select(func.count()).select_from(BotVersion).where(BotVersion.bot_id == version.bot_id)) == 0
    assert_serving(server, stub)


def test_a_refused_version_leaves_the_previous_one_playing(server, stub) -> None:  # noqa: ANN001
    user = new_account(stub)
    first = stub.SubmitBot(pb.SubmitBotRequest(name="steady", game="toy", archive=tar_bot(), wait=True), metadata=user.meta)
    assert first.version.status == pb.VERSION_STATUS_ACTIVE
    second = stub.SubmitBot(
        pb.SubmitBotRequest(name="steady", game="toy", archive=tar_bot({"bot.py": CRASHING_BOT}), wait=True), metadata=user.meta
    )
    assert second.version.number == 2 and second.version.status == pb.VERSION_STATUS_REFUSED
    detail = stub.GetBot(pb.GetBotRequest(bot_id=first.bot.bot.id))
    assert detail.bot.active and detail.bot.active_version == 1
    assert [v.status for v in detail.versions] == [pb.VERSION_STATUS_REFUSED, pb.VERSION_STATUS_ACTIVE]
    third = stub.SubmitBot(pb.SubmitBotRequest(name="steady", game="toy", archive=tar_bot({"bot.py": GOOD_BOT}), wait=True),
                           metadata=user.meta)
    assert third.version.number == 3 and third.version.status == pb.VERSION_STATUS_ACTIVE
    statuses = [v.status for v in stub.GetBot(pb.GetBotRequest(bot_id=first.bot.bot.id)).versions]
    assert statuses == [pb.VERSION_STATUS_ACTIVE, pb.VERSION_STATUS_REFUSED, pb.VERSION_STATUS_RETIRED]
