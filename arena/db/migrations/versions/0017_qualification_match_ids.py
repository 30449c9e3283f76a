"""``bot_submissions.match_id`` indexed: a qualification match (kept in its submission, not in
``matches``) is looked up by the id ``arena submit`` prints, or a prefix of it, by GetMatch,
WatchMatch and the website (arena.db.qualification_matches) — a range read, not a table scan.

Revision ID: 0017_qualification_ids
Revises: 0016_human_seats
Create Date: 2026-12-04 21:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0017_qualification_ids"
down_revision = "0016_human_seats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_submissions") as batch:
        batch.create_index("ix_bot_submissions_match_id", ["match_id"])


def downgrade() -> None:
    with op.batch_alter_table("bot_submissions") as batch:
        batch.drop_index("ix_bot_submissions_match_id")
