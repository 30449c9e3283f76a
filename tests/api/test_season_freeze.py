"""A season's submission deadline over a real socket (issue 39 item 6): after it, SubmitBot of
an entered bot is refused with the season named (FAILED_PRECONDITION), nothing is stored, and
the server keeps serving (uploads after the season: tests/platform/test_seasons.py)."""

from __future__ import annotations

from datetime import timedelta

import grpc

from arena.competition import seasons
from arena.db import Bot, session_scope, utcnow
from referee._proto import arena_pb2 as pb
from tests.api.archives import GOOD_BOT, tar_bot
from tests.api.conftest import new_account
from tests.api.test_refusals import assert_serving, refused, snapshot


def test_an_entered_bot_cannot_upload_after_the_deadline(server, stub) -> None:  # noqa: ANN001
    author = new_account(stub, "seasonal")
    first = stub.SubmitBot(pb.SubmitBotRequest(name="frosty", game="toy", archive=tar_bot(), wait=True),
                           metadata=author.meta, timeout=60)
    assert first.version.status == pb.VERSION_STATUS_ACTIVE, first.version.refusal.message
    with session_scope(server.servicer.url) as s:
        season = seasons.create_season(s, "toy", "Frost", utcnow() + timedelta(hours=1), players=2, top_k=2)
        seasons.enter(s, season, s.get(Bot, first.bot.bot.id))
        seasons.freeze(s, season, early=True)
        sid = season.id
    newer = tar_bot({"bot.py": GOOD_BOT + b"\n# a later version\n"})
    before = snapshot(server)
    refused(stub.SubmitBot, pb.SubmitBotRequest(name="frosty", game="toy", archive=newer, wait=True),
            grpc.StatusCode.FAILED_PRECONDITION, metadata=author.meta,
            contains=f"frosty is entered in season {sid} (Frost), whose submissions closed")
    assert snapshot(server) == before
    assert_serving(server, stub)
