"""CreateTournament with format TOURNAMENT_KIND_SWISS, on an in-process server over a real
socket: rounds paired one after another, and GetTournament's standings and rounds."""

from __future__ import annotations

import time
from fractions import Fraction

import grpc
import pytest

from arena.sdk.client import pack_folder
from arena.workers import celery_app
from referee._proto import arena_pb2 as pb
from tests.api.conftest import make_organiser, new_account
from tests.api.processes import ROOT


@pytest.mark.skipif(not celery_app.app.conf.task_always_eager, reason="this process was started with a broker")
def test_a_swiss_over_the_api_pairs_every_round_and_shows_standings(server, stub) -> None:  # noqa: ANN001
    orga = new_account(stub, "swiss-orga")
    make_organiser(server, orga)
    ids = []
    for i in range(3):
        author = new_account(stub, "swiss-author")  # one entry per author (arena.intake.authors)
        reply = stub.SubmitBot(pb.SubmitBotRequest(name=f"sw-rnd-{i}", game="toy", wait=True,
                                                   archive=pack_folder(ROOT / "sample_bots" / "random_bot")),
                               metadata=author.meta, timeout=60)
        assert reply.version.status == pb.VERSION_STATUS_ACTIVE, reply.version.refusal.message
        ids.append(reply.bot.bot.id)
    t = stub.CreateTournament(pb.CreateTournamentRequest(
        name="api swiss", game="toy", players=2, bot_ids=ids, rounds=3, decision_ms=1500, bank_ms=3000,
        format=pb.TOURNAMENT_KIND_SWISS), metadata=orga.meta)
    assert t.tournament_kind == pb.TOURNAMENT_KIND_SWISS and t.kind == "swiss"
    assert t.matches_total == 3  # one table a round, one bye
    deadline = time.monotonic() + 120
    while (t := stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id))).status != "done":
        assert time.monotonic() < deadline, t
        time.sleep(0.2)
    assert [r.number for r in t.swiss_rounds] == [1, 2, 3]
    assert all(r.tables == r.tables_finished == 1 and r.repeats == 0 for r in t.swiss_rounds[:2])
    assert len({r.bye_version_ids[0] for r in t.swiss_rounds}) == 3  # each bot sits out once
    places = [s.place for s in t.swiss_standings]
    assert places[0] == 1 and places == sorted(places)
    assert sorted(s.bot_id for s in t.swiss_standings) == sorted(ids)
    assert sum(s.score for s in t.swiss_standings) == pytest.approx(3 + 3)
    assert sum(Fraction(s.score_exact) for s in t.swiss_standings) == 6  # exact, as a fraction
    assert all(float(Fraction(s.score_exact)) == s.score for s in t.swiss_standings)
    assert all(s.sonneborn_berger_exact and s.direct_exact for s in t.swiss_standings)
    assert all(s.games == 2 and s.byes == 1 for s in t.swiss_standings)


def test_a_swiss_of_six_seats_is_refused_clearly(server, stub) -> None:  # noqa: ANN001
    orga = new_account(stub, "swiss-orga6")
    make_organiser(server, orga)
    with pytest.raises(grpc.RpcError) as err:
        stub.CreateTournament(pb.CreateTournamentRequest(game="toy", players=6, format=pb.TOURNAMENT_KIND_SWISS),
                              metadata=orga.meta)
    assert err.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)
