"""The author rule over the gRPC API, on an in-process server: CreateTournament refuses two bots
of one account by default (INVALID_ARGUMENT, saying who and what), takes each author's best bot
when no bot is named (and says how many it left out), and follows the operator's
``entries_per_author``, with the author's own games unrated."""

from __future__ import annotations

import grpc
import pytest

from arena.db import Match, session_scope
from arena.sdk.client import pack_folder
from arena.workers import celery_app
from referee._proto import arena_pb2 as pb
from tests.api.conftest import make_organiser, new_account
from tests.api.processes import ROOT

RANDOM = ROOT / "sample_bots" / "random_bot"


def _submit(stub, account, name: str) -> int:  # noqa: ANN001
    reply = stub.SubmitBot(pb.SubmitBotRequest(name=name, game="toy", archive=pack_folder(RANDOM), wait=True),
                           metadata=account.meta, timeout=60)
    assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal
    return reply.bot.bot.id


@pytest.mark.skipif(not celery_app.app.conf.task_always_eager, reason="this process was started with a broker")
def test_create_tournament_enforces_entries_per_author(server, stub) -> None:  # noqa: ANN001
    orga = new_account(stub, "rule-orga")
    make_organiser(server, orga)
    twins, other = new_account(stub, "twins"), new_account(stub, "other")
    a, b = _submit(stub, twins, "twin-a"), _submit(stub, twins, "twin-b")
    c = _submit(stub, other, "other-c")
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateTournament(pb.CreateTournamentRequest(name="t", game="toy", players=2, bot_ids=[a, b, c]),
                              metadata=orga.meta)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == (
        f"this tournament allows 1 entry per author, and '{twins.name}' has 2 (twin-a v1, twin-b v1): enter "
        "fewer of their bots, or raise the limit (entries per author)")
    # no bot named: every active bot, but one per author — and the notice says who was left out
    every = stub.CreateTournament(pb.CreateTournamentRequest(name="all", game="toy", players=2),
                                  metadata=orga.meta)
    assert a not in every.bot_ids or b not in every.bot_ids
    assert "left out: 1 entry per author" in every.notice
    # the operator allows two: the twins' own games are played, unrated
    server.servicer.config.entries_per_author = 2
    try:
        t = stub.CreateTournament(pb.CreateTournamentRequest(name="two", game="toy", players=2,
                                                             bot_ids=[a, b, c]), metadata=orga.meta)
    finally:
        server.servicer.config.entries_per_author = 1
    assert t.matches_total == 6
    with session_scope(server.servicer.url) as s:
        rated = {frozenset(x.version.bot_id for x in m.seats): m.rated
                 for m in s.query(Match).filter(Match.tournament_id == t.id)}
    assert rated == {frozenset({a, b}): False, frozenset({a, c}): True, frozenset({b, c}): True}
