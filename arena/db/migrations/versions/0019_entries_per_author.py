"""``tournaments.entries_per_author``: how many entries one author (a bot's owner) may have in a
tournament, the organiser's setting (arena.intake.authors). Tournaments made before had no limit
stored; they get 1, which only matters for the tournament page (their matches exist already).

Revision ID: 0019_entries_per_author
Revises: 0018_match_voids
Create Date: 2026-12-06 20:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_entries_per_author"
down_revision = "0018_match_voids"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("entries_per_author", sa.Integer(), server_default="1", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("entries_per_author")
