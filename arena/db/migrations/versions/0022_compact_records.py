"""``matches.record_compact`` and ``matches.engine_version``: a finished match stored as what
cannot be recomputed (``arena.records.compact``, issue 40), zstandard-compressed, with the
engine version that made it; ``matches.record`` (the JSON) is then NULL, and the full record is
regenerated on demand (``arena.records.stored``). Existing rows keep their JSON until
``arena records compact`` converts them (verifying each one, keeping the JSON of any that does
not verify).

Revision ID: 0022_compact_records
Revises: 0021_human_seat_log
Create Date: 2026-12-06 23:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_compact_records"
down_revision = "0021_human_seat_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("record_compact", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("engine_version", sa.String(40), nullable=True))


def downgrade() -> None:
    # Compact rows would lose their record: refuse rather than drop them silently.
    bind = op.get_bind()
    left = bind.execute(sa.text("SELECT COUNT(*) FROM matches WHERE record_compact IS NOT NULL"
                                " AND record IS NULL")).scalar()
    if left:
        raise RuntimeError(f"{left} matches are stored only in compact form: run "
                           "`arena records expand` before downgrading")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("engine_version")
        batch_op.drop_column("record_compact")
