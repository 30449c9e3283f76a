"""The tournament CLI without a broker (in-process), and its answers to user mistakes."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from arena.cli import cli
from arena.db import Match, Rating, Tournament, session_scope
from arena.records import stored
from tests.platform.conftest import RANDOM_BOT

SANDBOX = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
FAST = ["--decision-ms", "1000", "--bank-ms", "3000"]


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)


def test_in_process_tournament_then_rebuild(sqlite_url: str) -> None:
    runner = CliRunner()
    bots = [f"--bot=r{i}={RANDOM_BOT}" for i in range(4)]
    out = runner.invoke(cli, ["tournament", "toy", *bots, "-k", "3", "-w", "2", *FAST, *SANDBOX])
    assert out.exit_code == 0, out.output
    assert "Leaderboard" in out.output and "r3 v1" in out.output
    with session_scope() as s:
        t = s.scalars(select(Tournament)).one()
        assert (t.status, t.matches_done, t.matches_total) == ("done", 4, 4)
        assert t.progress()["fraction"] == 1.0
        assert {m.status for m in s.scalars(select(Match))} == {"done"}
    rebuilt = runner.invoke(cli, ["ratings", "rebuild", "toy"])
    assert rebuilt.exit_code == 0 and "all identical" in rebuilt.output
    with session_scope() as s:
        s.scalars(select(Rating)).first().mu += 1.0  # corrupt one rating
    bad = runner.invoke(cli, ["ratings", "rebuild", "toy"])
    assert bad.exit_code == 1 and "differ" in bad.output
    fixed = runner.invoke(cli, ["ratings", "rebuild", "toy", "--write"])
    assert fixed.exit_code == 0
    assert "all identical" in runner.invoke(cli, ["ratings", "rebuild", "toy"]).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tournament", "nosuchgame", f"--bot={RANDOM_BOT}"], "unknown game"),
        (["tournament", "toy", f"--bot={RANDOM_BOT}", "-k", "3"], "need at least 3 bots"),
        (["tournament", "toy", "--bot=/no/such/folder", f"--bot={RANDOM_BOT}"], "not a folder"),
        (["tournament", "toy", f"--bot={RANDOM_BOT}", f"--bot={RANDOM_BOT}", "-k", "5"],
         "not 5"),
        (["ratings", "rebuild", "nosuchgame"], "unknown game"),
        (["worker"], "ARENA_BROKER_URL"),
    ],
)
def test_user_mistakes_get_one_clear_line(sqlite_url: str, args: list[str], message: str) -> None:
    out = CliRunner().invoke(cli, [*args, *SANDBOX] if args[0] == "tournament" else args)
    assert out.exit_code != 0
    assert message in out.output
    assert "Traceback" not in out.output


def test_ladder_command_in_process(sqlite_url: str) -> None:
    bots = [f"--bot=l{i}={RANDOM_BOT}" for i in range(4)]
    out = CliRunner().invoke(
        cli, ["ladder", "run", "toy", *bots, "--matches", "6", "--queue", "2", *FAST, *SANDBOX]
    )
    assert out.exit_code == 0, out.output
    assert "Leaderboard" in out.output
    with session_scope() as s:
        ladder_matches = list(s.scalars(select(Match).where(Match.kind == "ladder")))
        assert len([m for m in ladder_matches if m.status == "done"]) >= 6
        assert {m.status for m in ladder_matches} == {"done"}  # the queue left was played out
        assert len({m.players for m in ladder_matches}) >= 2  # toy allows 2-4: counts rotate
    done = len(ladder_matches)
    shown = CliRunner().invoke(cli, ["ladder", "toy"])  # what was played, nothing more
    assert shown.exit_code == 0, shown.output
    assert "ladder of toy" in shown.output and f"{done} done" in shown.output
    assert "l3 v1" in shown.output and "arena ladder run toy" in shown.output
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(Match)) == done


def test_ladder_without_action_shows_status(sqlite_url: str) -> None:
    """``arena ladder GAME`` (typed to see the ladder) starts nothing; options of a running
    ladder send the user to ``arena ladder run``."""
    out = CliRunner().invoke(cli, ["ladder", "toy"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("toy has no ladder in sqlite:///")
    assert "arena ladder run toy --bot" in out.output
    with session_scope() as s:
        assert s.scalar(select(func.count()).select_from(Match)) == 0
    wrong = CliRunner().invoke(cli, ["ladder", "toy", f"--bot={RANDOM_BOT}"])
    assert wrong.exit_code == 2
    assert "`arena ladder toy` shows the ladder; to run it here with --bot: arena ladder run toy" in wrong.output


def test_tournament_takes_builtin_bots_by_name(sqlite_url: str) -> None:
    out = CliRunner().invoke(cli, ["tournament", "toy", "--bot", "random", "--bot", "random",
                                   *FAST, *SANDBOX])
    assert out.exit_code == 0, out.output
    assert "random v1" in out.output and "random-2 v1" in out.output
    bad = CliRunner().invoke(cli, ["tournament", "toy", "--bot", "greedy", "--bot", "random", *SANDBOX])
    assert bad.exit_code == 2 and "there is no built-in greedy bot for toy" in bad.output


def test_play_match_task_is_idempotent(sqlite_url: str) -> None:
    """The task body run twice for one match (a re-delivered message): counted once."""
    from arena.intake import bots
    from arena.records import recording
    from arena.workers import tasks

    with session_scope() as s:
        ids = [bots.register_version(s, "toy", RANDOM_BOT, name=f"t{i}").id for i in range(2)]
        match = recording.create_match(s, "toy", "base", ids, seed=5, decision_ms=1000,
                                       bank_ms=3000, sandbox=not SANDBOX)
        mid = match.id
    assert tasks.play_match_now(mid).status == "recorded"
    with session_scope() as s:
        before = [(r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))]
    assert tasks.play_match_now(mid).status == "done"
    with session_scope() as s:
        after = [(r.mu, r.sigma, r.games_played) for r in s.scalars(select(Rating))]
        assert after == before and all(g == 1 for _, _, g in after)
        m = s.get(Match, mid)
        record = stored.record_data(m)  # stored compactly: regenerated
        assert m.attempts == 1 and record["match_id"] == mid and record["decisions"]


def test_demo_plays_every_game(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    import subprocess
    import sys

    from tests.platform.conftest import ROOT

    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("ARENA_DATABASE_URL", "ARENA_BROKER_URL", "ARENA_EXTRA_GAMES")}
    env["ARENA_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "arena", "demo", "--no-web", "--rounds", "1"],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    for game in ("black_angel", "solenia"):
        assert f"Leaderboard — {game}" in out.stdout
    assert "0 failed" in out.stdout and (tmp_path / "arena.sqlite3").exists()
    # and a small finished season (arena/cli/season.py demo_season)
    assert "Demo season" in out.stdout and "final standings published" in out.stdout


def test_resume_plays_exactly_what_an_interrupted_tournament_left(sqlite_url: str) -> None:
    """The process running a tournament died: one match half played, the rest never started."""
    from arena.competition import tournaments
    from arena.intake.bots import register_version

    with session_scope() as s:
        ids = [register_version(s, "toy", str(RANDOM_BOT), name=f"r{i}").id for i in range(3)]
        t = tournaments.create_tournament(s, "toy", ids, 2, decision_ms=1000, bank_ms=3000,
                                         sandbox=not SANDBOX)
        tid, total = t.id, t.matches_total
        tournaments.start(s, t)
        crashed = s.scalars(select(Match).where(Match.tournament_id == tid)).first()
        crashed.status, crashed.lease_until = "running", 0.0  # its worker died mid-match
    out = CliRunner().invoke(cli, ["resume", str(tid), "-w", "2"])
    assert out.exit_code == 0, out.output
    assert f"{total} match(es) sent again" in out.output and "Leaderboard" in out.output
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.status, t.matches_done) == ("done", total)
        assert {m.status for m in t.matches} == {"done"}
        assert all(len(m.seats) == 2 and all(seat.rank for seat in m.seats) for m in t.matches)
    again = CliRunner().invoke(cli, ["resume", str(tid)])
    assert again.exit_code == 0 and "already finished" in again.output
    missing = CliRunner().invoke(cli, ["resume", "999"])
    assert missing.exit_code != 0 and "there is no tournament 999" in missing.output


def test_a_database_from_another_build_gets_one_clear_line(tmp_path) -> None:  # noqa: ANN001
    # A database stamped by a newer (or an unlanded) build: its revision is unknown here, and
    # Alembic's own answer is a traceback ("Can't locate revision identified by ...").
    import os
    import sqlite3
    import subprocess
    import sys

    db = tmp_path / "newer.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES ('0099_from_the_future')")
    env = {**os.environ, "ARENA_DATABASE_URL": f"sqlite:///{db}"}
    env.pop("ARENA_BROKER_URL", None)
    out = subprocess.run([sys.executable, "-m", "arena", "ratings", "rebuild", "solenia"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr + out.stdout
    assert "0099_from_the_future" in out.stderr and "newer or different build" in out.stderr
