"""Client request ids of the Arena API (idempotent Register and submissions).

Revision ID: 0004_req
Revises: 0003_web
Create Date: 2026-12-01 01:35:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_req"
down_revision = "0003_web"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("call", sa.String(length=30), nullable=False),
        sa.Column("scope", sa.String(length=100), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["bot_submissions.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("call", "scope", "request_hash", name="uq_api_requests_call_scope_hash"),
    )


def downgrade() -> None:
    op.drop_table("api_requests")
