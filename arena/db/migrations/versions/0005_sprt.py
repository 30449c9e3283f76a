"""SPRT of new versions: ``sprt_tests``, ``bot_versions.held``, ``bot_submissions.sprt_settings``.

Revision ID: 0005_sprt
Revises: 0004_req
Create Date: 2026-12-01 01:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_sprt"
down_revision = "0004_req"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("held", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("bot_submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sprt_settings", sa.JSON(), nullable=True))
    op.create_table(
        "sprt_tests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("candidate_version_id", sa.Integer(), nullable=False),
        sa.Column("baseline_version_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("variant", sa.String(length=50), nullable=False),
        sa.Column("elo0", sa.Float(), nullable=False),
        sa.Column("elo1", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("max_pairs", sa.Integer(), nullable=False),
        sa.Column("replace", sa.String(length=10), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.Column("lower", sa.Float(), nullable=False),
        sa.Column("upper", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("elo_error", sa.Float(), nullable=False),
        sa.Column("pentanomial", sa.JSON(), nullable=False),
        sa.Column("trinomial", sa.JSON(), nullable=False),
        sa.Column("replaced", sa.Boolean(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["baseline_version_id"], ["bot_versions.id"]),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.ForeignKeyConstraint(["candidate_version_id"], ["bot_versions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_sprt_tests_bot_id", "sprt_tests", ["bot_id"], unique=False)
    op.create_index("ix_sprt_tests_candidate_version_id", "sprt_tests", ["candidate_version_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_sprt_tests_candidate_version_id", table_name="sprt_tests")
    op.drop_index("ix_sprt_tests_bot_id", table_name="sprt_tests")
    op.drop_table("sprt_tests")
    with op.batch_alter_table("bot_submissions", schema=None) as batch_op:
        batch_op.drop_column("sprt_settings")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("held")
