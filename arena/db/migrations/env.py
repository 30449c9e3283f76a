"""Alembic environment: runs on the connection the app hands over, or opens one from the URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from arena.db.models import Base
from arena.db.session import database_url

config = context.config
target_metadata = Base.metadata


def _configure_and_run(connection) -> None:  # noqa: ANN001
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # ALTER TABLE on SQLite
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or database_url()
    engine = create_engine(url)
    with engine.begin() as conn:
        _configure_and_run(conn)


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url") or database_url()
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
