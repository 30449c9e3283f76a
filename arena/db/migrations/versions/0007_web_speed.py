"""Indexes for the website at 1,000,000 matches: a bot's history, a status, newest forfeits.

* ``ix_matches_id_created`` (``id, created_at``): a bot's matches are found from its seats (a
  few hundred ids) and sorted by ``created_at``; with this index each id is an index-only
  probe instead of a fetch of the wide match row (its record) — 27 ms → ~2 ms for a bot with
  300 matches in ``arena bench web``.
* ``ix_matches_status_created`` (``status, created_at, id``): "done matches, newest first"
  (and running, pending, failed) is an index range in page order; before, the status index
  fetched every done match and sorted them, or a walk fetched each row to read its status.
* ``ix_match_seats_forfeit_match`` (``match_id`` where ``forfeit`` is set): a tiny partial
  index (one seat in a hundred), so "newest matches with a forfeit" walks the matches newest
  first and probes it, instead of reading every forfeited seat and sorting (1.5 s at 10,000
  forfeits).

Revision ID: 0007_web
Revises: 0006_automata
Create Date: 2026-12-01 04:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_web"
down_revision = "0006_automata"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index("ix_matches_id_created", ["id", "created_at"], unique=False)
        batch_op.create_index(
            "ix_matches_status_created", ["status", "created_at", "id"], unique=False
        )
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.create_index(
            "ix_match_seats_forfeit_match",
            ["match_id"],
            unique=False,
            postgresql_where=sa.text("forfeit IS NOT NULL"),
            sqlite_where=sa.text("forfeit IS NOT NULL"),
        )


def downgrade() -> None:
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_match_seats_forfeit_match")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_status_created")
        batch_op.drop_index("ix_matches_id_created")
