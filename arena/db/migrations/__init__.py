"""Alembic migrations of the arena schema.

The app never calls ``create_all``: every process upgrades to ``head`` on start
(:func:`arena.db.session.init_db` → :func:`upgrade`), so a deployed PostgreSQL and a fresh
SQLite file go through exactly the same steps. New migration (developers)::

    alembic -c arena/db/migrations/alembic.ini revision --autogenerate -m "what changed"
"""

from __future__ import annotations

import threading
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.util.exc import CommandError
from sqlalchemy import Engine

from arena import SettingError

HERE = Path(__file__).resolve().parent

#: Alembic is not thread-safe: a migration reaches its connection through module-level proxies
#: (``alembic.op``, ``alembic.context``) that each run sets and clears. Two threads of one process
#: upgrading two databases at once (a server's threads, the web app beside a worker in a test)
#: clear each other's: one fails with "'NoneType' object has no attribute 'batch_alter_table'".
#: The per-database locks of ``init_db`` cannot see that, so one process runs one upgrade at a time.
_UPGRADE_LOCK = threading.Lock()


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply migrations up to ``revision`` on ``engine`` (idempotent).

    A database stamped with a revision this build does not know was written by a newer (or an
    unreleased) build: upgrading cannot know what that revision changed, so it stops with one
    line that says so and what to do, instead of Alembic's traceback.
    """
    cfg = alembic_config()
    try:
        with _UPGRADE_LOCK, engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, revision)
    except CommandError as exc:
        where = engine.url.render_as_string(hide_password=True)
        raise SettingError(
            f"cannot bring the database {where} up to date: {exc}. It was written by a newer or "
            "different build of Tabletop Arena; use that build, or point ARENA_DATABASE_URL (or "
            "ARENA_HOME) at another database") from None
