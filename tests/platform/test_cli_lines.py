"""Wrong usage of the ``arena`` command, run as a user runs it (a subprocess): each case ends
with its exit code and one ``Error: …`` line on stderr, never a traceback (issue #29)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event

from arena.db import Match, dispose_all, get_engine, session_scope
from arena.db.match_ids import ids_with_prefix
from tests.platform.conftest import ROOT, free_port


def arena(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], env=env, cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout)


def one_line(proc: subprocess.CompletedProcess[str], code: int) -> str:
    """The single ``Error:`` line of a refused command (asserting there is nothing else)."""
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    assert proc.stdout == "", proc.stdout
    return lines[0]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user's environment: the database under a fresh ARENA_HOME, no server, no broker."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("ARENA_DATABASE_URL", "ARENA_DATABASE_URL_FILE", "ARENA_SERVER",
                        "ARENA_BROKER_URL", "ARENA_TLS", "ARENA_TLS_CA")}
    env.update(ARENA_HOME=str(tmp_path / "home"),
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    return env


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another process listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_a_database_url_that_is_no_url(env: dict[str, str]) -> None:
    line = one_line(arena("ladder", "solenia", env={**env, "ARENA_DATABASE_URL": "notaurl"}), 1)
    assert line == ("Error: ARENA_DATABASE_URL=notaurl: not a database URL; write e.g. "
                    "sqlite:////path/to/arena.sqlite3 or postgresql://user:password@host:5432/dbname")


@pytest.mark.parametrize(("url", "says"), [
    ("mysql://u@h/db", "stores its data in SQLite or PostgreSQL, not mysql"),
    ("postgresql+pg8000://u@h/db", "not pg8000"),
    ("postgresql://u:s3cret@127.0.0.1:1/db", "cannot use the database postgresql://u:***@127.0.0.1:1/db: "),
    ("postgresql://u:s3cret@h:port/db", "ARENA_DATABASE_URL=postgresql://u:***@h:port/db: not a database URL"),
])
def test_database_urls_that_cannot_work(env: dict[str, str], url: str, says: str) -> None:
    line = one_line(arena("ratings", "rebuild", "solenia", env={**env, "ARENA_DATABASE_URL": url}), 1)
    assert says in line and "s3cret" not in line


def test_an_arena_home_that_cannot_hold_the_database(env: dict[str, str]) -> None:
    line = one_line(arena("ladder", "solenia", env={**env, "ARENA_HOME": "/proc/nope"}), 1)
    assert line == ("Error: cannot create the database folder /proc/nope: No such file or "
                    "directory; set ARENA_HOME to a folder you can write")


def test_fork_asks_the_server_arena_server_names(env: dict[str, str]) -> None:
    port = free_port()
    proc = arena("fork", "abcdef12", "--at", "3", "--seat", "0", "--bot", "random",
                 env={**env, "ARENA_SERVER": f"127.0.0.1:{port}"})
    line = one_line(proc, 2)
    assert line.startswith(f"Error: cannot reach the arena server at 127.0.0.1:{port}: ")
    # connection refused is not a TLS problem: no --tls hint, the right one
    assert "TLS" not in line and "--tls" not in line
    assert line.endswith("(nothing listens there: is the server running, and is the port right?)")
    # --db wins over ARENA_SERVER: the local database, which has no such match
    local = arena("fork", "abcdef12", "--at", "3", "--seat", "0", "--bot", "random", "--db",
                  f"sqlite:///{env['ARENA_HOME']}/arena.sqlite3", env={**env, "ARENA_SERVER": f"127.0.0.1:{port}"})
    assert one_line(local, 2).startswith("Error: no match 'abcdef12'")


def test_client_commands_hint_tls_only_when_it_may_be_tls(env: dict[str, str]) -> None:
    port = free_port()
    line = one_line(arena("matches", "--server", f"127.0.0.1:{port}", env=env), 1)
    assert "--tls" not in line and "nothing listens there" in line


def test_match_ids_are_found_through_the_index(sqlite_url: str) -> None:
    """``arena fork PREFIX`` on a big database: an index range read, not a table scan."""
    from arena.db.models import utcnow

    ids = ["abc0" + "0" * 28, "abc1" + "0" * 28, "abd0" + "0" * 28]
    with session_scope() as s:
        for mid in ids:
            s.add(Match(id=mid, game="toy", variant="base", players=2, seed=1, status="done",
                        kind="tournament", created_at=utcnow()))
    statements: list[tuple[str, tuple]] = []
    engine = get_engine()
    def record(*args: object) -> None:
        if not str(args[2]).lstrip().upper().startswith("BEGIN"):  # SQLite's BEGIN IMMEDIATE event
            statements.append((args[2], args[3]))

    event.listen(engine, "before_cursor_execute", record)
    with session_scope() as s:
        assert ids_with_prefix(s, "abc") == ids[:2]  # ambiguous: both
        assert ids_with_prefix(s, "abc1") == [ids[1]]
        assert ids_with_prefix(s, ids[2]) == [ids[2]]  # a whole id
        assert ids_with_prefix(s, "abe") == [] and ids_with_prefix(s, "xyz") == []
        assert ids_with_prefix(s, "a" * 33) == []
        event.remove(engine, "before_cursor_execute", record)
        assert statements and all("LIKE" not in q.upper() for q, _ in statements)
        plans = [" | ".join(str(row[-1]) for row in
                            s.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {q}", params))
                 for q, params in statements]
    # every lookup is a search of the primary key's index, none a scan of the table; the
    # qualification matches (arena.db.qualification_matches) are searched by their own index
    assert all(("SEARCH matches USING" in plan or "SEARCH bot_submissions USING COVERING INDEX "
                "ix_bot_submissions_match_id" in plan) and "SCAN" not in plan for plan in plans), plans
    assert any("SEARCH bot_submissions" in plan for plan in plans), plans
    dispose_all()


def test_tournament_and_ladder_refuse_unknown_builtins(env: dict[str, str]) -> None:
    sandbox = [] if subprocess.run(["which", "bwrap"], capture_output=True).returncode == 0 else ["--unsafe-no-sandbox"]
    for command in (["tournament", "solenia"], ["ladder", "run", "solenia"]):
        line = one_line(arena(*command, "--bot", "random", "--bot", "smart", *sandbox, env=env), 2)
        assert line == ("Error: --bot smart: not a folder with bot.py, a host:port address, nor a "
                        "built-in bot (random, greedy, ismcts, learned)")


def test_play_refuses_a_player_count_before_announcing_the_match(env: dict[str, str]) -> None:
    line = one_line(arena("play", "solenia", "--players", "7", "--bot", "random", env=env), 2)
    assert line == "Error: solenia is played by 1-4 players, not 7"


def test_ladder_game_shows_the_ladder_and_starts_nothing(env: dict[str, str]) -> None:
    proc = arena("ladder", "solenia", env=env, timeout=30)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith("solenia has no ladder in sqlite:///")
    assert "arena ladder run solenia --bot" in proc.stdout
    wrong = one_line(arena("ladder", "solenia", "--matches", "3", env=env), 2)
    assert wrong == ("Error: `arena ladder solenia` shows the ladder; to run it here with "
                     "--matches: arena ladder run solenia …")


@pytest.mark.parametrize("command", [["serve", "--host", "127.0.0.1", "--unsafe-no-sandbox"], ["web"]])
def test_servers_refuse_a_port_in_use_before_announcing(env: dict[str, str], taken_port: int,
                                                        command: list[str]) -> None:
    line = one_line(arena(*command, "--port", str(taken_port), env=env), 1)
    assert line == (f"Error: cannot listen on 127.0.0.1:{taken_port}: the port is in use "
                    "(another server? choose another with --port)")


@pytest.mark.parametrize("setting", [{"ARENA_HOME": "/proc/nope"}, {"ARENA_DATABASE_URL": "notaurl"}])
@pytest.mark.parametrize("command", [["serve", "--host", "127.0.0.1", "--unsafe-no-sandbox"],
                                     ["demo", "--no-web"]])
def test_services_check_the_database_setting_before_announcing(env: dict[str, str], setting: dict[str, str],
                                                               command: list[str]) -> None:
    port = ["--port", str(free_port())] if command[0] == "serve" else []
    line = one_line(arena(*command, *port, env={**env, **setting}), 1)
    assert ("cannot create the database folder /proc/nope" in line if "ARENA_HOME" in setting
            else "ARENA_DATABASE_URL=notaurl: not a database URL" in line)


def test_serve_checks_its_bots_folder_before_announcing(env: dict[str, str], tmp_path: Path) -> None:
    proc = arena("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--unsafe-no-sandbox",
                 "--data-dir", "/proc/nope", env={**env, "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'a.sqlite3'}"})
    assert one_line(proc, 1) == ("Error: cannot create the bots folder /proc/nope/bots: No such file or "
                                 "directory; pass --data-dir or set ARENA_DATA_DIR (or ARENA_HOME) to a "
                                 "folder you can write")
