"""Alembic migrations of the arena schema.

The app never calls ``create_all``: every process upgrades to ``head`` on start
(:func:`arena.db.session.init_db` → :func:`upgrade`), so a deployed PostgreSQL and a fresh
SQLite file go through exactly the same steps. New migration (developers)::

    alembic -c arena/migrations/alembic.ini revision --autogenerate -m "what changed"
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

HERE = Path(__file__).resolve().parent


def alembic_config(url: str | None = None) -> Config:
    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply migrations up to ``revision`` on ``engine`` (idempotent)."""
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)
