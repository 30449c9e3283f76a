"""An event's lifecycle over the real gRPC API (an in-process server, no broker): an organiser opens
a Swiss for entries, authors enter their own bots, the organiser sets a round deadline, starts,
pauses and resumes it, and corrects a result with a reason that lands in the audit log. Another
organiser, a plain user and a stranger to a bot are refused (PERMISSION_DENIED) at every step."""

from __future__ import annotations

import json
import time

import grpc
import pytest

from arena.db import session_scope
from arena.intake import bots
from arena.workers import celery_app
from referee._proto import arena_pb2 as pb
from tests.api.conftest import make_organiser, new_account
from tests.api.processes import ROOT

RANDOM = ROOT / "sample_bots" / "random_bot"


def _denied(call, request, account) -> str:  # noqa: ANN001
    with pytest.raises(grpc.RpcError) as refused:
        call(request, metadata=account.meta)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, refused.value.details()
    return refused.value.details()


@pytest.mark.skipif(not celery_app.app.conf.task_always_eager, reason="this process was started with a broker")
def test_an_event_from_entries_to_a_corrected_result(server, stub) -> None:  # noqa: ANN001
    olga, otto, plain = new_account(stub, "olga"), new_account(stub, "otto"), new_account(stub, "plain")
    make_organiser(server, olga)
    make_organiser(server, otto)
    authors = [new_account(stub, "author") for _ in range(3)]
    with session_scope(server.servicer.url) as s:
        bot_ids = [bots.register_version(s, "toy", str(RANDOM), name=f"ev{i}", owner=a.name).bot_id
                   for i, a in enumerate(authors)]
    with pytest.raises(grpc.RpcError) as refused:  # a plain user creates nothing
        stub.CreateTournament(pb.CreateTournamentRequest(game="toy", players=2, open_entries=True),
                              metadata=plain.meta)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    t = stub.CreateTournament(pb.CreateTournamentRequest(
        name="open cup", game="toy", players=2, rounds=2, open_entries=True, decision_ms=1500, bank_ms=3000,
        format=pb.TOURNAMENT_KIND_SWISS), metadata=olga.meta)
    assert (t.tournament_status, t.entries_open, t.organiser, t.matches_total) == (
        pb.TOURNAMENT_STATUS_OPEN, True, olga.name, 0)
    tid = t.id
    # each author enters their own bot; nobody enters another's, not even another organiser
    assert "only its owner or the event's organiser" in _denied(
        stub.EnterTournament, pb.EnterTournamentRequest(tournament_id=tid, bot_id=bot_ids[0]), plain)
    _denied(stub.EnterTournament, pb.EnterTournamentRequest(tournament_id=tid, bot_id=bot_ids[0]), otto)
    for account, bot_id in zip(authors, bot_ids, strict=True):
        t = stub.EnterTournament(pb.EnterTournamentRequest(tournament_id=tid, bot_id=bot_id), metadata=account.meta)
    assert sorted(e.bot_id for e in t.entries) == sorted(bot_ids)
    # a fourth author enters, then deactivates the bot: it is withdrawn at once, by the system
    quitter = new_account(stub, "quitter")
    with session_scope(server.servicer.url) as s:
        quit_bot = bots.register_version(s, "toy", str(RANDOM), name="quit", owner=quitter.name).bot_id
    stub.EnterTournament(pb.EnterTournamentRequest(tournament_id=tid, bot_id=quit_bot), metadata=quitter.meta)
    stub.DeactivateBot(pb.DeactivateBotRequest(bot_id=quit_bot), metadata=quitter.meta)
    t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
    gone = next(e for e in t.entries if e.bot_id == quit_bot)
    assert (gone.withdrawn, gone.withdrawn_by, gone.withdrawn_reason) == (True, "system", "quit was deactivated")
    # only olga manages it
    for who in (otto, plain):
        _denied(stub.StartTournament, pb.StartTournamentRequest(tournament_id=tid), who)
        _denied(stub.SetRoundDeadline, pb.SetRoundDeadlineRequest(tournament_id=tid, seconds=5), who)
        _denied(stub.SetTournamentEntries, pb.SetTournamentEntriesRequest(tournament_id=tid, open=False), who)
    assert "managed by " + olga.name in _denied(
        stub.PauseTournament, pb.PauseTournamentRequest(tournament_id=tid), otto)
    t = stub.SetRoundDeadline(pb.SetRoundDeadlineRequest(tournament_id=tid, seconds=600), metadata=olga.meta)
    assert t.round_deadline_seconds == 600
    t = stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=olga.meta)
    assert not t.entries_open and t.matches_total == 2  # 3 entries, 2 seats: a table and a bye a round
    with pytest.raises(grpc.RpcError) as late:
        stub.EnterTournament(pb.EnterTournamentRequest(tournament_id=tid, bot_id=bot_ids[0]),
                             metadata=authors[0].meta)
    assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    paused = stub.PauseTournament(pb.PauseTournamentRequest(tournament_id=tid, reason="a break"), metadata=olga.meta)
    if paused.tournament_status == pb.TOURNAMENT_STATUS_PAUSED:
        stub.ResumeTournament(pb.ResumeTournamentRequest(tournament_id=tid), metadata=olga.meta)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        t = stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))
        if t.tournament_status == pb.TOURNAMENT_STATUS_DONE:
            break
        time.sleep(0.3)
    assert t.tournament_status == pb.TOURNAMENT_STATUS_DONE, t
    match = stub.ListMatches(pb.ListMatchesRequest(tournament_id=tid)).matches[0]
    request = pb.CorrectResultRequest(tournament_id=tid, match_id=match.id, ranks=[2, 1], reason="arbiter's ruling")
    _denied(stub.CorrectResult, request, otto)
    _denied(stub.CorrectResult, request, authors[0])
    with pytest.raises(grpc.RpcError) as no_reason:
        stub.CorrectResult(pb.CorrectResultRequest(tournament_id=tid, match_id=match.id, ranks=[2, 1]),
                           metadata=olga.meta)
    assert no_reason.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    stub.CorrectResult(request, metadata=olga.meta)
    log = stub.ListTournamentAudit(pb.ListTournamentAuditRequest(tournament_id=tid)).entries
    actions = [(e.actor, e.action) for e in log]
    assert actions[0] == (olga.name, "create")
    assert (olga.name, "start") in actions and (olga.name, "deadline") in actions
    assert sum(a == "enter" for _, a in actions) == 4 and ("system", "withdraw") in actions
    correction = next(e for e in log if e.action == "correct")
    assert correction.reason == "arbiter's ruling" and correction.match_id == match.id
    assert json.loads(correction.detail_json)["after"] == [2, 1] and correction.time.seconds > 0
