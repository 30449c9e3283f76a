"""Arena API tables: users (hashed API tokens) and bot submissions (qualification status).

Kept as its own revision because the API server owns these tables (arena/db/accounts.py).

Revision ID: 0002_api
Revises: 0001
Create Date: 2026-11-29 15:18:44.739502
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_api"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "bot_submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("refusal_kind", sa.String(length=30), nullable=True),
        sa.Column("refusal_message", sa.Text(), nullable=True),
        sa.Column("log_tail", sa.Text(), nullable=True),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("bot_version_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["bot_id"],
            ["bots.id"],
        ),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "number", name="uq_bot_submissions_bot_number"),
    )
    with op.batch_alter_table("bot_submissions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_submissions_bot_id"), ["bot_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("bot_submissions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_submissions_bot_id"))

    op.drop_table("bot_submissions")
    op.drop_table("users")
