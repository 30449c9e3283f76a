"""``registrations``: which client made each new account in the last hour, so ``Register`` is
capped per client address (ARENA_REGISTRATIONS_PER_CLIENT_PER_HOUR, arena.server.registrations)
and the count survives a restart of the server; ``bot_submissions.client``: which client's call
made a submission, so pending qualifications are capped per client across accounts
(ARENA_PENDING_QUALIFICATIONS_PER_CLIENT).

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
    with op.batch_alter_table("bot_submissions") as batch:
        batch.add_column(sa.Column("client", sa.String(length=100), nullable=True))
        batch.create_index("ix_bot_submissions_client_status", ["client", "status"])


def downgrade() -> None:
    with op.batch_alter_table("bot_submissions") as batch:
        batch.drop_index("ix_bot_submissions_client_status")
        batch.drop_column("client")
    op.drop_index("ix_registrations_created_at", table_name="registrations")
    op.drop_index("ix_registrations_client_at", table_name="registrations")
    op.drop_table("registrations")
