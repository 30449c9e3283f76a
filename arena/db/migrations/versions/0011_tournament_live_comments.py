"""``tournaments.live_comments``: whether watchers see the bots' comments while the matches run.

Off by default (and for every tournament created before it): a comment streamed live is a side
channel between colluding entrants, whose own processes can watch each other's matches. The
record keeps every comment, shown once the match is over.

Revision ID: 0011_live_comments
Revises: 0010_drop_seat_forfeit
Create Date: 2026-12-03 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_live_comments"
down_revision = "0010_drop_seat_forfeit"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("live_comments", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("live_comments")
