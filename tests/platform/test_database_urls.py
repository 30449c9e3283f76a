"""``ARENA_DATABASE_URL`` as users write it: every form opens with an installed driver, records
matches on the per-match fast path (arena.db.driver_sql) and rebuilds identical ratings; a URL
that cannot work is refused in one line."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import cli
from arena.db import Match, dispose_all, get_engine, session_scope
from tests.platform.conftest import RANDOM_BOT

SANDBOX = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
FAST = ["--decision-ms", "1000", "--bank-ms", "3000"]

#: The PostgreSQL spellings and the driver each must open with.
POSTGRES_FORMS = {
    "postgresql": "psycopg",  # SQLAlchemy 2.1's default for the bare scheme: psycopg 3
    "postgresql+psycopg": "psycopg",
    "postgresql+psycopg2": "psycopg2",
    "postgres": "psycopg",  # Heroku's spelling
}


def _tournament_recorded(url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Play a 2-bot toy tournament in-process on ``url``; the driver its engine used."""
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    dispose_all()
    runner = CliRunner()
    bots = [f"--bot=u{i}={RANDOM_BOT}" for i in range(2)]
    out = runner.invoke(cli, ["tournament", "toy", *bots, "-k", "2", "-w", "2", *FAST, *SANDBOX])
    assert out.exit_code == 0, out.output
    with session_scope() as s:
        statuses = [m.status for m in s.scalars(select(Match))]
    assert statuses and set(statuses) == {"done"}, statuses
    rebuilt = runner.invoke(cli, ["ratings", "rebuild", "toy"])
    assert rebuilt.exit_code == 0 and "all identical" in rebuilt.output, rebuilt.output
    driver = get_engine().dialect.driver
    dispose_all()
    return driver


@pytest.mark.postgres
@pytest.mark.parametrize("scheme", list(POSTGRES_FORMS))
@pytest.mark.usefixtures("shortcut_setting")
def test_postgresql_urls_record_matches(scheme: str, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    url = scheme + "://" + pg_url.split("://", 1)[1]
    assert _tournament_recorded(url, monkeypatch) == POSTGRES_FORMS[scheme]


@pytest.mark.usefixtures("shortcut_setting")
def test_sqlite_url_records_matches(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    assert _tournament_recorded(f"sqlite:///{tmp_path / 'a.sqlite3'}", monkeypatch) == "pysqlite"
