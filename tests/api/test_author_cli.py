"""The bot author's loop from the command line, against a real server on a real socket:
``arena submit`` names the qualification match, ``arena matches`` lists full ids, ``arena watch``
takes any unique prefix and tells the match with bot names, labels and comments numbered as on
the website, ``arena ladder start|stop|status`` drive a server's ladder."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.db import session_scope
from arena.records.recording import create_match, fail
from referee._proto import arena_pb2 as pb
from tests.api.conftest import Account, make_organiser
from tests.api.processes import ROOT

RANDOM_BOT = ROOT / "sample_bots" / "random_bot"


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    return tmp_path


def _run(*args: str, server) -> object:  # noqa: ANN001
    return CliRunner().invoke(cli, [*args, "--server", server.address])


def test_submit_matches_and_watch_by_prefix(server, stub, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    registered = _run("register", "loop-ann", server=server)
    assert registered.exit_code == 0
    token = re.search(r"API token \(shown only now\): (\S+)", registered.output).group(1)
    bot_ids = {}
    for name in ("ann-one", "ann-two"):
        if name == "ann-two":  # one entry per author (arena.intake.authors): ann-two is another account's
            assert _run("register", "loop-ann-2", server=server).exit_code == 0
        result = _run("submit", str(RANDOM_BOT), "--game", "toy", "--name", name, server=server)
        assert result.exit_code == 0, result.output
        assert re.search(r"qualification match [0-9a-f]{32}\n", result.output), result.output
        bot_ids[name] = int(re.search(r"\(id (\d+), toy\)", result.output).group(1))
    organiser = Account("loop-ann", token)
    make_organiser(server, organiser)
    t = stub.CreateTournament(pb.CreateTournamentRequest(name="loop", game="toy", players=2,
                                                         bot_ids=list(bot_ids.values()),
                                                         decision_ms=1500, bank_ms=3000),
                              metadata=organiser.meta)
    deadline = time.monotonic() + 120
    while stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id)).status != "done":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    played = [m.id for m in stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.id)).matches]
    assert len(played) == 2
    qualified = dict(zip(bot_ids, played, strict=True))

    listed = _run("matches", "--game", "toy", server=server)
    assert listed.exit_code == 0, listed.output
    for match_id in qualified.values():
        assert re.search(rf"^{match_id}  toy +done", listed.output, re.M), listed.output
    mine = _run("matches", "--bot", "ann-two", "--limit", "1", server=server)
    assert mine.output.count("\n") == 1 and "ann-two v1" in mine.output
    assert _run("matches", "--live", server=server).output.strip() == "no matches"
    unknown = _run("matches", "--bot", "nobody-at-all", server=server)
    assert unknown.exit_code == 2 and "--bot nobody-at-all: no bot of that name" in unknown.output
    both = _run("matches", "--live", "--status", "done", server=server)
    assert both.exit_code == 2 and "--live lists running matches" in both.output

    match_id = qualified["ann-one"]
    watched = _run("watch", match_id[:8], server=server)
    assert watched.exit_code == 0, watched.output
    assert f"match {match_id}: toy" in watched.output
    assert "ann-one" in watched.output  # seats by their bots' names
    first = re.search(r"^\[   1\] ann-(one|two) v1 \(seat (\d)\): (.+)$", watched.output, re.M)
    assert first, watched.output  # numbered from 1, as on the website's replay
    assert first.group(3).startswith("play card ")  # the option's label, not its id (play:N)
    assert "match over" in watched.output
    record = CliRunner().invoke(cli, ["watch", match_id[:8], "--json", "--server", server.address])
    assert record.exit_code == 0 and f'"match_id": "{match_id}"' in record.output

    # two matches whose ids share a prefix: the prefix is refused as ambiguous, naming both
    with session_scope(server.servicer.url) as s:
        from arena.db import Bot

        versions = [b.versions[0].id for b in s.query(Bot).filter(Bot.name.in_(["ann-one", "ann-two"]))]
        ids = iter([uuid.UUID("fee10000" + "0" * 24), uuid.UUID("fee20000" + "0" * 24)])
        monkeypatch.setattr(uuid, "uuid4", lambda: next(ids))
        for _ in range(2):
            m = create_match(s, "toy", "standard", versions, seed=1)
            s.commit()
            fail(s, m.id, "made by the test")
        monkeypatch.undo()
    ambiguous = _run("watch", "fee", server=server)
    assert ambiguous.exit_code == 1
    assert "the id prefix 'fee' is ambiguous: it matches fee1" in ambiguous.output and "fee2" in ambiguous.output
    missing = _run("watch", "0123abcd", server=server)
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.output
    assert "Traceback" not in ambiguous.output + missing.output
    failed = _run("matches", "--status", "failed", server=server)
    assert "fee1" + "0" * 28 in failed.output and "fee2" + "0" * 28 in failed.output


def test_ladder_start_status_stop_over_the_api(server, home: Path) -> None:  # noqa: ANN001
    result = _run("register", "loop-orga", server=server)
    assert result.exit_code == 0, result.output
    token = re.search(r"API token \(shown only now\): (\S+)", result.output).group(1)
    refused = _run("ladder", "start", "toy", server=server)
    assert refused.exit_code == 1 and "PERMISSION_DENIED" in refused.output
    make_organiser(server, Account("loop-orga", token))
    started = _run("ladder", "start", "toy", server=server)
    assert started.exit_code == 0, started.output
    assert "ladder toy" in started.output and ": running" in started.output
    status = _run("ladder", "status", "toy", server=server)
    assert status.exit_code == 0 and ": running" in status.output and "matches:" in status.output
    stopped = _run("ladder", "stop", "toy", server=server)
    assert stopped.exit_code == 0 and ": stopped" in stopped.output
    assert ": stopped" in _run("ladder", "status", "toy", server=server).output
    bad = _run("ladder", "status", "chess", server=server)
    assert bad.exit_code == 1 and "INVALID_ARGUMENT" in bad.output and "Traceback" not in bad.output


def test_fork_a_match_of_the_server_by_prefix(server, stub, home: Path) -> None:  # noqa: ANN001
    registered = _run("register", "loop-fork", server=server)
    token = re.search(r"API token \(shown only now\): (\S+)", registered.output).group(1)
    organiser = Account("loop-fork", token)
    make_organiser(server, organiser)
    ids = []
    for name in ("fork-a", "fork-b"):
        if name == "fork-b":  # one entry per author (arena.intake.authors): fork-b is another account's
            assert _run("register", "loop-fork-2", server=server).exit_code == 0
        result = _run("submit", str(RANDOM_BOT), "--game", "toy", "--name", name, server=server)
        assert result.exit_code == 0, result.output
        ids.append(int(re.search(r"\(id (\d+), toy\)", result.output).group(1)))
    t = stub.CreateTournament(pb.CreateTournamentRequest(name="fork", game="toy", players=2, bot_ids=ids,
                                                         decision_ms=1500, bank_ms=3000), metadata=organiser.meta)
    deadline = time.monotonic() + 120
    while stub.GetTournament(pb.GetTournamentRequest(tournament_id=t.id)).status != "done":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    match_id = stub.ListMatches(pb.ListMatchesRequest(tournament_id=t.id)).matches[0].id
    out = home / "fork.json"
    args = ["fork", match_id[:8], "--at", "2", "--seat", "1", "--bot", "random", "--out", str(out)]
    # the server's bots are not on this machine: the author says who plays the other seat
    needs = _run(*args, server=server)
    assert needs.exit_code == 2 and "give --others" in needs.output, needs.output
    forked = _run(*args, "--others", "random", server=server)
    assert forked.exit_code == 0, forked.output
    record = json.loads(out.read_text())
    assert record["origin"]["match_id"] == match_id and record["origin"]["decision"] == 2
    original = json.loads(stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).record_json)
    assert [d["option"] for d in record["decisions"][:2]] == [d["option"] for d in original["decisions"][:2]]
    gone = _run("fork", "0123abcd", "--at", "1", "--seat", "0", "--bot", "random", server=server)
    assert gone.exit_code == 2 and "NOT_FOUND" in gone.output
