"""Swiss tournaments: ``tournaments.format`` and the ``tournament_rounds`` table.

``format`` is ``round_robin`` for every tournament before this revision (all matches created up
front) or ``swiss`` (paired a round at a time from the standings, arena.competition.swiss). A Swiss round's
row in ``tournament_rounds`` (its primary key: tournament and round) is inserted in the same
transaction as the round's matches, so a round is paired exactly once even when two workers
record its last results at the same moment; it also keeps the round's byes.

Revision ID: 0012_swiss
Revises: 0011_live_comments
Create Date: 2026-12-03 21:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_swiss"
down_revision = "0011_live_comments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("format", sa.String(length=20), server_default="round_robin",
                                      nullable=False))
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "round"),
    )


def downgrade() -> None:
    op.drop_table("tournament_rounds")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("format")
