"""Indexes for the website's match history: keyset pages on (created_at, id); forfeits.

Without them every history page sorts the whole matches table (~150 ms at 100,000 matches);
with them a page is an index range scan of 50 entries. Kept as its own revision because the
website (web/queries/matches.py) is what needs them.

Revision ID: 0003_web
Revises: 0002_api
Create Date: 2026-11-29 15:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0003_web"
down_revision = "0002_api"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index("ix_matches_created", ["created_at", "id"], unique=False)
        batch_op.create_index("ix_matches_game_created", ["game", "created_at", "id"], unique=False)
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.create_index("ix_match_seats_forfeit", ["forfeit"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_match_seats_forfeit")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_game_created")
        batch_op.drop_index("ix_matches_created")
