"""``human_seats``: a person's seat in a match played in the browser (arena.play.human, web/play.py):
the seat secret's hash, the client that started it, the decision waiting for the person and
their answer.

Revision ID: 0016_human_seats
Revises: 0015_challenges
Create Date: 2026-12-04 21:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_human_seats"
down_revision = "0015_challenges"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "human_seats",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("decision", sa.Integer(), nullable=True),
        sa.Column("observation", sa.Text(), nullable=True),
        sa.Column("options", sa.Text(), nullable=True),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("deadline", sa.Float(), nullable=True),
        sa.Column("answer", sa.String(length=200), nullable=True),
        sa.Column("answer_decision", sa.Integer(), nullable=True),
        sa.Column("alive_until", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"]),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    op.create_index("ix_human_seats_client", "human_seats", ["client", "status"])
    op.create_index("ix_human_seats_status", "human_seats", ["status"])


def downgrade() -> None:
    op.drop_index("ix_human_seats_status", table_name="human_seats")
    op.drop_index("ix_human_seats_client", table_name="human_seats")
    op.drop_table("human_seats")
