"""``matches.voids``: how often the tries of a match were void at each seat's decisions.

A match the host voided (``referee.match.HostOverloaded``: a seat's limit reached at its hard
cap while its bot seemed kept waiting for a CPU) goes back to the queue. Counted per seat
across the tries ("1,0": one void at seat 0's decisions), a second void at the same seat ends
in that seat's forfeit (``void_limit``) instead of another replay: a bot that can make its own
decisions look host-starved must not get a free retry each time it is losing. NULL: none.

Revision ID: 0018_match_voids
Revises: 0017_qualification_ids
Create Date: 2026-12-06 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_match_voids"
down_revision = "0017_qualification_ids"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("voids", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("voids")
