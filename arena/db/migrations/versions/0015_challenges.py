"""``challenges`` and ``matches.rated``: one account's bot challenging another's to a match now
(arena.play.challenges), and unrated matches.

A challenge match is unrated unless the challenger asks for a rated one: ``matches.rated`` false
means recorded and ranked but never rated (no rating change, history row or ``rating_seq``, so
a rebuild skips it as it skips every match without a sequence number). Every match made before
is rated: the column defaults to true.

Revision ID: 0015_challenges
Revises: 0014_regcap
Create Date: 2026-12-04 21:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_challenges"
down_revision = "0014_regcap"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("challenger_bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("opponent_bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("match_id", sa.String(length=32), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id"),
    )
    op.create_index("ix_challenges_user_created", "challenges", ["user_id", "created_at"])
    op.create_index(
        "ix_challenges_challenger_created", "challenges", ["challenger_bot_id", "created_at"]
    )
    op.create_index(
        "ix_challenges_opponent_created", "challenges", ["opponent_bot_id", "created_at"]
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rated", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("rated")
    op.drop_index("ix_challenges_opponent_created", table_name="challenges")
    op.drop_index("ix_challenges_challenger_created", table_name="challenges")
    op.drop_index("ix_challenges_user_created", table_name="challenges")
    op.drop_table("challenges")
