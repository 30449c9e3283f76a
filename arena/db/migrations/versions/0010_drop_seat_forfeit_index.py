"""Drop ``ix_match_seats_forfeit``: no read uses it any more, and it misled the planner.

The website's "with a forfeit" history filter first read forfeited seats through this index
(0003_web); 0007_web replaced that with the partial index ``ix_match_seats_forfeit_match``
(``match_id`` where ``forfeit IS NOT NULL``), which is all the filter reads. Kept, this index
cost a write per seat update and, worse, PostgreSQL chose it over the partial index to list
the forfeited matches — a heap page per forfeited seat (9,000 pages, ~470 ms cold at 1,000,000
matches) where the partial index is read index-only (75 pages, ~3 ms).

Revision ID: 0010_drop_seat_forfeit
Revises: 0009_seed64
Create Date: 2026-12-01 21:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0010_drop_seat_forfeit"
down_revision = "0009_seed64"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_match_seats_forfeit")


def downgrade() -> None:
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.create_index("ix_match_seats_forfeit", ["forfeit"], unique=False)
