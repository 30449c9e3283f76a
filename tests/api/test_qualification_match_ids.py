"""The qualification match id ``arena submit`` prints (issue 29): ``arena watch``, ``arena
matches --bot``, GetMatch and the website all find it, though the match is kept in its
submission, not in ``matches`` (arena.db.qualification_matches). A real server on a real
socket, a real qualification match of the toy game, the real Flask app on the same database."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.db import Match, session_scope
from referee._proto import arena_pb2 as pb
from tests.api.archives import tar_bot
from tests.api.conftest import new_account
from tests.api.processes import ROOT
from web.app import create_app

RANDOM_BOT = ROOT / "sample_bots" / "random_bot"
CRASHING_BOT = b"""import os
import sys
from arena.sdk import serve_bot

def act(observation, legal_options):
    print("qualification crash on purpose", file=sys.stderr, flush=True)
    os._exit(7)

if __name__ == "__main__":
    serve_bot(act)
"""


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    return tmp_path


def _run(*args: str, server) -> object:  # noqa: ANN001
    return CliRunner().invoke(cli, [*args, "--server", server.address])


def test_the_printed_id_is_found_by_watch_matches_getmatch_and_the_website(
    server, stub, home: Path
) -> None:  # noqa: ANN001
    assert _run("register", "qual-ids", server=server).exit_code == 0
    submitted = _run(
        "submit", str(RANDOM_BOT), "--game", "toy", "--name", "qual-one", server=server
    )
    assert submitted.exit_code == 0, submitted.output
    match_id = re.search(r"qualification match ([0-9a-f]{32})\n", submitted.output).group(1)
    with session_scope(server.servicer.url) as s:
        assert s.get(Match, match_id) is None  # still not a row of ``matches``

    watched = _run("watch", match_id[:10], server=server)  # a prefix, as for every match
    assert watched.exit_code == 0, watched.output
    assert f"match {match_id}: toy" in watched.output and "match over" in watched.output
    assert "qual-one" in watched.output and "NOT_FOUND" not in watched.output

    listed = _run("matches", "--bot", "qual-one", server=server)
    assert listed.exit_code == 0, listed.output
    assert re.search(rf"^{match_id}  toy +done .*qual-one v1", listed.output, re.M), listed.output
    assert (
        match_id
        not in _run("matches", "--bot", "qual-one", "--status", "failed", server=server).output
    )

    got = stub.GetMatch(pb.GetMatchRequest(match_id=match_id[:12]))
    assert got.summary.id == match_id and got.summary.status == "done"
    assert got.summary.seats[0].bot == "qual-one" and got.summary.seats[0].version == 1
    assert (
        got.summary.seats[0].bot_id > 0 and got.summary.seats[1].bot_id == 0
    )  # the server's random bot
    assert json.loads(got.record_json)["match_id"] == match_id

    app = create_app(server.servicer.url)
    client = app.test_client()
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert match_id[:8] in html and "qualification" in html and "qual-one" in html
    assert 'href="/bots/0"' not in html  # the random bot is no bot of the site: no link
    api = client.get(f"/api/matches/{match_id}")
    assert api.status_code == 200 and api.get_json()["kind"] == "qualification"
    assert client.get(f"/api/matches/{match_id}/record").get_json()["match_id"] == match_id

    missing = _run("watch", "0123abcd", server=server)  # an unknown id is still NOT_FOUND
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.output
    assert client.get("/matches/0123abcd0123abcd0123abcd0123abcd").status_code == 404


def test_a_refused_versions_match_is_found_and_its_log_is_its_owners(server, stub) -> None:  # noqa: ANN001
    owner, other = new_account(stub, "qual-owner"), new_account(stub, "qual-other")
    reply = stub.SubmitBot(
        pb.SubmitBotRequest(
            name="qual-crash", game="toy", archive=tar_bot({"bot.py": CRASHING_BOT}), wait=True
        ),
        metadata=owner.meta,
    )
    assert reply.version.status == pb.VERSION_STATUS_REFUSED
    match_id = reply.version.refusal.match_id
    assert re.fullmatch(r"[0-9a-f]{32}", match_id)

    mine = stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=owner.meta)
    assert mine.summary.seats[0].forfeit_reason == "crash"
    assert (
        "qualification crash on purpose" in json.loads(mine.record_json)["forfeits"][0]["log_tail"]
    )
    for metadata in (other.meta, ()):
        theirs = json.loads(
            stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=metadata).record_json
        )
        assert (
            theirs["forfeits"][0]["reason"] == "crash" and "log_tail" not in theirs["forfeits"][0]
        )

    events = list(stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id[:9]), timeout=30))
    assert [e.kind for e in events] == [pb.MATCH_EVENT_KIND_RECORD]
    assert "qualification crash on purpose" not in events[0].record_json

    listed = stub.ListMatches(pb.ListMatchesRequest(bot_id=reply.bot.bot.id))
    assert [m.id for m in listed.matches] == [match_id]
    html = (
        create_app(server.servicer.url)
        .test_client()
        .get(f"/matches/{match_id}")
        .get_data(as_text=True)
    )
    assert (
        "crash" in html and "qualification crash on purpose" not in html
    )  # the site shows no logs
