"""``human_seats.own_log``: the person's own choices in words (``[[decision, label], …]``), so the
move log beside the board (web/play.py) shows the seat its own hidden choices, which the public
live stream does not name. Rows made before have none (their log shows "your hidden choice").

Revision ID: 0021_human_seat_log
Revises: 0020_dataset_opt_out
Create Date: 2026-12-06 21:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_human_seat_log"
down_revision = "0020_dataset_opt_out"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("human_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("own_log", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("human_seats", schema=None) as batch_op:
        batch_op.drop_column("own_log")
