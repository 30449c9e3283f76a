"""Hostile input over the real gRPC server (issue #26 item 7): names that end in a newline,
ids at the ends of the int64 range, and 10,000-character strings. Each is a clear refusal —
INVALID_ARGUMENT or NOT_FOUND, never INTERNAL — with a short message and short details."""

from __future__ import annotations

import base64

import grpc
import pytest
from grpc_status import rpc_status

from arena.intake.bots import BotError, source_digest
from arena.server.errors import MAX_DETAILS_BYTES, MAX_MESSAGE_BYTES
from referee._proto import arena_pb2 as pb
from referee.dialin_client import is_source
from tests.api.archives import tar_bot
from tests.api.conftest import make_organiser, new_account
from tests.api.test_refusals import assert_serving, refused

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
LONG = "g" * 10_000
#: Multi-byte and control characters: percent-encoding makes each one up to 12 bytes long.
LONG_WIDE = "é\n☃\x00" * 2_500
CLEAR_REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
                  grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.PERMISSION_DENIED}


# --- names that end in a newline -----------------------------------------------------------------

def test_a_name_with_a_final_newline_does_not_pose_as_the_name(server, stub) -> None:  # noqa: ANN001
    carol = stub.Register(pb.RegisterRequest(name="carol"))
    refused(stub.Register, pb.RegisterRequest(name="carol\n"), grpc.StatusCode.INVALID_ARGUMENT, contains="user name")
    refused(stub.Register, pb.RegisterRequest(name="dave\n"), grpc.StatusCode.INVALID_ARGUMENT, contains="user name")
    meta = (("authorization", f"Bearer {carol.token}"),)
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="carolbot\n", game="toy", archive=tar_bot()),
            grpc.StatusCode.INVALID_ARGUMENT, metadata=meta, contains="bot name")
    refused(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="carolbot", game="toy", address="127.0.0.1:5000\n"),
            grpc.StatusCode.INVALID_ARGUMENT, metadata=meta, contains="host:port")
    refused(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(
        name="carolbot", game="toy", address="127.0.0.1:5000", request_id="request-1\n"),
        grpc.StatusCode.INVALID_ARGUMENT, metadata=meta, contains="request_id")
    assert [b.name for b in stub.ListBots(pb.ListBotsRequest(owner="carol")).bots] == []


def test_sources_with_a_final_newline_are_not_addresses() -> None:
    assert is_source("dialin://carol/toy/bot")
    assert not is_source("dialin://carol/toy/bot\n")
    assert source_digest("127.0.0.1:5000")[0] == "remote"
    with pytest.raises(BotError):
        source_digest("127.0.0.1:5000\n")


# --- ids at the ends of the int64 range ---------------------------------------------------------------

def _never_internal(call, request, metadata=()) -> None:  # noqa: ANN001
    try:
        call(request, metadata=metadata, timeout=30)
    except grpc.RpcError as exc:
        assert exc.code() in CLEAR_REFUSALS, (type(request).__name__, exc.code(), exc.details())


@pytest.mark.parametrize("bot_id", [INT64_MAX, INT64_MIN, -1, 2**31, 2**32 + 1])
def test_ids_anywhere_in_int64_are_refused_clearly(server, stub, bot_id: int) -> None:  # noqa: ANN001
    owner = new_account(stub, "ids")
    make_organiser(server, owner)
    with pytest.raises(grpc.RpcError) as info:
        stub.GetBot(pb.GetBotRequest(bot_id=bot_id), timeout=30)
    assert info.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
    _never_internal(stub.GetVersionStatus, pb.GetVersionStatusRequest(bot_id=bot_id, number=2**32 - 1))
    _never_internal(stub.DeactivateBot, pb.DeactivateBotRequest(bot_id=bot_id), owner.meta)
    _never_internal(stub.GetTournament, pb.GetTournamentRequest(tournament_id=bot_id))
    _never_internal(stub.GetRatingHistory, pb.GetRatingHistoryRequest(bot_id=bot_id))
    _never_internal(stub.ListMatches, pb.ListMatchesRequest(bot_id=bot_id))
    _never_internal(stub.ListMatches, pb.ListMatchesRequest(tournament_id=bot_id))
    _never_internal(stub.CreateTournament, pb.CreateTournamentRequest(name="ids", game="toy", players=2,
                                                                      bot_ids=[bot_id, 1]), owner.meta)
    assert_serving(server, stub)


def test_an_unsigned_64_bit_id_on_the_wire_is_refused_clearly(server, stub) -> None:  # noqa: ANN001
    """Another language's client may write 2**64 - 1 into an int64 field: it arrives as -1; a
    longer varint cannot be decoded."""
    varint = b"\xff" * 9 + b"\x01"  # 2**64 - 1
    channel = grpc.insecure_channel(server.address)
    try:
        for method in ("GetBot", "GetTournament", "GetRatingHistory"):
            call = channel.unary_unary(f"/tabletop.arena.v1.Arena/{method}")
            with pytest.raises(grpc.RpcError) as info:
                call(b"\x08" + varint, timeout=10)  # field 1, varint
            assert info.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND), method
            # Past 64 bits a varint is no int64 at all: the request cannot be decoded.
            with pytest.raises(grpc.RpcError) as info:
                call(b"\x08" + b"\xff" * 10 + b"\x01", timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method
    finally:
        channel.close()


# --- 10,000-character input ---------------------------------------------------------------------------------

def _short_refusal(call, request, metadata=()) -> grpc.StatusCode:  # noqa: ANN001
    """The call is refused clearly, its message and its details trailer are bounded."""
    with pytest.raises(grpc.RpcError) as info:
        call(request, metadata=metadata, timeout=30)
    err = info.value
    assert err.code() in CLEAR_REFUSALS, (type(request).__name__, err.code(), (err.details() or "")[:200])
    details = err.details() or ""
    assert details and len(details.encode()) <= MAX_MESSAGE_BYTES + 3, (type(request).__name__, len(details))
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            assert len(value) <= MAX_DETAILS_BYTES
            status = rpc_status.from_call(err)
            assert status is not None and len(status.message.encode()) <= MAX_MESSAGE_BYTES + 3
    return err.code()


@pytest.mark.parametrize("text", [LONG, LONG_WIDE], ids=["ascii", "wide"])
def test_ten_thousand_character_input_gets_a_short_refusal(server, stub, text: str) -> None:  # noqa: ANN001
    user = new_account(stub, "long")
    make_organiser(server, user)
    meta = user.meta
    # game names
    _short_refusal(stub.SubmitBot, pb.SubmitBotRequest(name="longgame", game=text, archive=tar_bot()), meta)
    _short_refusal(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="longgame", game=text,
                                                                       address="127.0.0.1:5000"), meta)
    _short_refusal(stub.GetLeaderboard, pb.GetLeaderboardRequest(game=text))
    _short_refusal(stub.ListMatches, pb.ListMatchesRequest(game=text))
    _short_refusal(stub.GetLadder, pb.GetLadderRequest(game=text))
    _short_refusal(stub.StartLadder, pb.StartLadderRequest(game=text), meta)
    _short_refusal(stub.StopLadder, pb.StopLadderRequest(game=text), meta)
    _short_refusal(stub.CreateTournament, pb.CreateTournamentRequest(name="t", game=text, players=2), meta)
    # variants
    _short_refusal(stub.CreateTournament, pb.CreateTournamentRequest(name="t", game="toy", variant=text, players=2), meta)
    _short_refusal(stub.StartLadder, pb.StartLadderRequest(game="toy", variant=text), meta)
    # bot and user names, addresses, statuses, ids, request ids
    _short_refusal(stub.Register, pb.RegisterRequest(name=text))
    _short_refusal(stub.SubmitBot, pb.SubmitBotRequest(name=text, game="toy", archive=tar_bot()), meta)
    _short_refusal(stub.RegisterRemoteBot, pb.RegisterRemoteBotRequest(name="longaddr", game="toy", address=text), meta)
    _short_refusal(stub.ListMatches, pb.ListMatchesRequest(status=text))
    _short_refusal(stub.GetMatch, pb.GetMatchRequest(match_id=text))
    _short_refusal(lambda request, **kw: next(iter(stub.WatchMatch(request, **kw))), pb.WatchMatchRequest(match_id=text))
    _short_refusal(stub.SubmitBot, pb.SubmitBotRequest(name="longreq", game="toy", archive=tar_bot(),
                                                       request_id=text), meta)
    assert_serving(server, stub)


def test_an_archive_member_with_a_long_name_gets_a_short_refusal(server, stub) -> None:  # noqa: ANN001
    """The refusal quotes the member, shortened; its ErrorInfo and BadRequest still arrive."""
    user = new_account(stub, "member")
    archive = tar_bot({"bot.py": b"x", "a/" * 2_000 + "x.py": b"x"})
    assert _short_refusal(stub.SubmitBot, pb.SubmitBotRequest(name="longmember", game="toy", archive=archive),
                          user.meta) == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        stub.SubmitBot(pb.SubmitBotRequest(name="longmember", game="toy", archive=archive), metadata=user.meta, timeout=30)
    status = rpc_status.from_call(info.value)
    assert status is not None and len(status.details) == 2


# --- forged page tokens ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("offset", ["²", "9" * 30, str(2**63), "9" * 5000, "-1"])
def test_a_forged_page_token_offset_is_refused_not_internal(server, stub, offset: str) -> None:  # noqa: ANN001
    """Offset page tokens are base64 of ``o:<offset>``; an offset int() cannot read, or one the
    database cannot bind, used to be an INTERNAL on four list calls."""
    token = base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()
    for call, request in [
        (stub.GetLeaderboard, pb.GetLeaderboardRequest(game="toy", page_token=token)),
        (stub.ListTournaments, pb.ListTournamentsRequest(page_token=token)),
        (stub.ListBots, pb.ListBotsRequest(page_token=token)),
        (stub.ListMatches, pb.ListMatchesRequest(page_token=token)),
    ]:
        refused(call, request, grpc.StatusCode.INVALID_ARGUMENT, contains="page_token")


# --- NUL characters --------------------------------------------------------------------------------------------

def test_a_nul_character_in_any_text_field_is_invalid_argument(server, stub) -> None:  # noqa: ANN001
    """PostgreSQL cannot compare a string with a NUL in it (psycopg2 raises ValueError, which was
    an INTERNAL on every call that looked such a string up); every call refuses it first."""
    user = new_account(stub, "nul")
    make_organiser(server, user)
    bad = grpc.StatusCode.INVALID_ARGUMENT
    refused(stub.ListBots, pb.ListBotsRequest(owner="carol\x00"), bad, contains="owner contains a NUL")
    refused(stub.ListBots, pb.ListBotsRequest(game="\x00"), bad, contains="game contains a NUL")
    refused(stub.GetMatch, pb.GetMatchRequest(match_id="ab\x00"), bad, contains="match_id")
    refused(stub.ListMatches, pb.ListMatchesRequest(status="done\x00"), bad, contains="status")
    refused(stub.ListTournaments, pb.ListTournamentsRequest(game="toy\x00"), bad, contains="game")
    refused(stub.Register, pb.RegisterRequest(name="ca\x00rol"), bad, contains="name")
    refused(stub.CreateTournament, pb.CreateTournamentRequest(name="cup\x00", game="toy", players=2), bad,
            metadata=user.meta, contains="name")
    with pytest.raises(grpc.RpcError) as info:
        next(iter(stub.WatchMatch(pb.WatchMatchRequest(match_id="\x00"), timeout=10)))
    assert info.value.code() == bad
    assert_serving(server, stub)
