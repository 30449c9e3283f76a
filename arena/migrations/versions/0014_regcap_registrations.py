"""``registrations``: which client made each new account in the last hour, so ``Register`` is
capped per client address (ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR, arena.server.registrations)
and the count survives a restart of the server.

Revision ID: 0014_regcap
Revises: 0013_live_feed
Create Date: 2026-12-04 17:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_regcap"
down_revision = "0013_live_feed"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "registrations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_registrations_client_at", "registrations", ["client", "created_at"])
    op.create_index("ix_registrations_created_at", "registrations", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_registrations_created_at", table_name="registrations")
    op.drop_index("ix_registrations_client_at", table_name="registrations")
    op.drop_table("registrations")
