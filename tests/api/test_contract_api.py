"""The Arena API's contract (issue 13, item 4): token rotation, paging on every list call,
enums beside the string forms, ``google.protobuf.Timestamp`` times, and machine-readable error
details. Real server, real gRPC."""

from __future__ import annotations

from datetime import UTC, datetime

import grpc
import pytest

from arena.sdk.auth import auth_metadata
from referee._proto import arena_pb2 as pb
from tests.api.archives import tar_bot
from tests.api.conftest import new_account


def code_of(call, request, **kw) -> grpc.StatusCode:  # noqa: ANN001
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=10, **kw)
    return info.value.code()


def test_rotate_token_replaces_the_old_token_at_once(stub) -> None:  # noqa: ANN001
    user = new_account(stub, "rotor")
    me = stub.WhoAmI(pb.WhoAmIRequest(), metadata=user.meta)
    assert me.role == "user" and me.user_role == pb.USER_ROLE_USER
    reply = stub.RotateToken(pb.RotateTokenRequest(), metadata=user.meta)
    assert reply.user.name == user.name and reply.token and reply.token != user.token
    assert code_of(stub.WhoAmI, pb.WhoAmIRequest(), metadata=user.meta) == grpc.StatusCode.UNAUTHENTICATED
    assert stub.WhoAmI(pb.WhoAmIRequest(), metadata=auth_metadata(reply.token)).name == user.name
    # Without a token there is nothing to rotate.
    assert code_of(stub.RotateToken, pb.RotateTokenRequest()) == grpc.StatusCode.UNAUTHENTICATED


def test_list_bots_is_paged_and_versions_carry_enums_and_timestamps(stub) -> None:  # noqa: ANN001
    user = new_account(stub, "pager")
    made = []
    for i in range(5):
        reply = stub.SubmitBot(pb.SubmitBotRequest(name=f"paged-{i}", game="toy", archive=tar_bot()),
                               metadata=user.meta, timeout=30)
        made.append(reply.bot.bot.id)
        version = reply.version
        assert version.kind == "hosted" and version.bot_kind == pb.BOT_KIND_HOSTED
        stamped = version.create_time.ToDatetime(tzinfo=UTC)
        assert abs((stamped - datetime.now(UTC)).total_seconds()) < 120
        # The same moment as the string form (which keeps milliseconds only).
        as_text = datetime.fromisoformat(version.created_at.replace("Z", "+00:00"))
        assert abs((as_text - stamped).total_seconds()) < 0.001
    seen, token, pages = [], "", 0
    while True:
        page = stub.ListBots(pb.ListBotsRequest(owner=user.name, page_size=2, page_token=token), timeout=10)
        assert len(page.bots) <= 2
        seen += [b.id for b in page.bots]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert sorted(seen) == sorted(made) and len(seen) == len(set(seen)) and pages == 3
    # One page large enough holds them all and says there is no next one.
    whole = stub.ListBots(pb.ListBotsRequest(owner=user.name), timeout=10)
    assert len(whole.bots) == 5 and whole.next_page_token == ""


@pytest.mark.parametrize(
    ("call", "request_"),
    [
        ("ListBots", pb.ListBotsRequest(page_token="not-ours")),
        ("ListTournaments", pb.ListTournamentsRequest(page_token="not-ours")),
        ("GetLeaderboard", pb.GetLeaderboardRequest(game="toy", page_token="not-ours")),
        ("ListMatches", pb.ListMatchesRequest(page_token="not-ours")),
    ],
    ids=["bots", "tournaments", "leaderboard", "matches"],
)
def test_a_page_token_the_server_did_not_hand_out_is_refused(stub, call: str, request_) -> None:  # noqa: ANN001
    assert code_of(getattr(stub, call), request_) == grpc.StatusCode.INVALID_ARGUMENT


def test_rating_history_and_tournaments_answer_pages(stub) -> None:  # noqa: ANN001
    user = new_account(stub, "hist")
    bot = stub.SubmitBot(pb.SubmitBotRequest(name="hist-bot", game="toy", archive=tar_bot()),
                         metadata=user.meta, timeout=30).bot.bot
    history = stub.GetRatingHistory(pb.GetRatingHistoryRequest(bot_id=bot.id, page_size=1), timeout=10)
    assert history.bot_id == bot.id and list(history.points) == [] and history.next_page_token == ""
    tournaments = stub.ListTournaments(pb.ListTournamentsRequest(game="toy", page_size=1), timeout=10)
    assert len(tournaments.tournaments) <= 1


def test_list_matches_filters_by_the_status_enum_and_refuses_a_contradiction(stub) -> None:  # noqa: ANN001
    done = stub.ListMatches(pb.ListMatchesRequest(match_status=pb.MATCH_STATUS_DONE), timeout=10)
    assert all(m.status == "done" and m.match_status == pb.MATCH_STATUS_DONE for m in done.matches)
    for m in done.matches:
        assert m.finish_time.ToDatetime(tzinfo=UTC) >= m.create_time.ToDatetime(tzinfo=UTC)
    clash = pb.ListMatchesRequest(status="running", match_status=pb.MATCH_STATUS_DONE)
    assert code_of(stub.ListMatches, clash) == grpc.StatusCode.INVALID_ARGUMENT


def test_register_with_a_request_id_is_idempotent(stub) -> None:  # noqa: ANN001
    first = stub.Register(pb.RegisterRequest(name="idem-user", request_id="reg-3f9a1c77"), timeout=10)
    again = stub.Register(pb.RegisterRequest(name="idem-user", request_id="reg-3f9a1c77"), timeout=10)
    assert again.user.id == first.user.id and again.token != first.token
    # The retry's token is the one that works now (the first may have been lost in transit).
    assert stub.WhoAmI(pb.WhoAmIRequest(), metadata=auth_metadata(again.token)).name == "idem-user"
    assert code_of(stub.WhoAmI, pb.WhoAmIRequest(), metadata=auth_metadata(first.token)) == grpc.StatusCode.UNAUTHENTICATED
    # Another id (or none) for a taken name is still refused.
    other = pb.RegisterRequest(name="idem-user", request_id="reg-other-id")
    assert code_of(stub.Register, other) == grpc.StatusCode.ALREADY_EXISTS
    assert code_of(stub.Register, pb.RegisterRequest(name="idem-user")) == grpc.StatusCode.ALREADY_EXISTS
    assert code_of(stub.Register, pb.RegisterRequest(name="idem-two", request_id="short")) == grpc.StatusCode.INVALID_ARGUMENT


def test_submission_with_a_request_id_creates_one_version(stub) -> None:  # noqa: ANN001
    user = new_account(stub, "idem")
    request = pb.SubmitBotRequest(name="idem-bot", game="toy", archive=tar_bot(), request_id="sub-7d1e0b42")
    first = stub.SubmitBot(request, metadata=user.meta, timeout=30)
    again = stub.SubmitBot(request, metadata=user.meta, timeout=30)
    assert (again.bot.bot.id, again.version.number) == (first.bot.bot.id, first.version.number) == (first.bot.bot.id, 1)
    # A new id is a new submission: version 2.
    request.request_id = "sub-7d1e0b43"
    assert stub.SubmitBot(request, metadata=user.meta, timeout=30).version.number == 2
    # The same id of another user is that user's own request.
    other = new_account(stub, "idem")
    request.name = "idem-bot-2"
    assert stub.SubmitBot(request, metadata=other.meta, timeout=30).version.number == 1
    # A refused call leaves its id unused: the corrected retry with the same id goes through.
    bad = pb.SubmitBotRequest(name="idem-bot-3", game="chess", archive=tar_bot(), request_id="sub-fix-me-1")
    assert code_of(stub.SubmitBot, bad, metadata=user.meta) == grpc.StatusCode.INVALID_ARGUMENT
    bad.game = "toy"
    assert stub.SubmitBot(bad, metadata=user.meta, timeout=30).version.number == 1
