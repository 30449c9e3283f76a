"""``live_events`` and ``live_boards``: the public live feed of running matches in the database,
so the website shows a match live on the embedded default (SQLite, no Redis), where the
matches run in the ``arena serve`` process and the site in ``arena web`` (arena.workers.live_table).

Revision ID: 0013_live_feed
Revises: 0012_swiss
Create Date: 2026-12-03 21:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_live_feed"
down_revision = "0012_swiss"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_events",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("written_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seq"),
    )
    op.create_index("ix_live_events_written", "live_events", ["written_at"])
    op.create_table(
        "live_boards",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("written_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("match_id"),
    )


def downgrade() -> None:
    op.drop_table("live_boards")
    op.drop_index("ix_live_events_written", table_name="live_events")
    op.drop_table("live_events")
