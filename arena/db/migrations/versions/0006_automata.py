"""Solo automata as rated pseudo-players, SPRT against the house bots.

``matches.automaton_version_id`` / ``automaton_rank``: the automaton a match was rated against
and its rank (NULL for ordinary matches and for solo matches recorded before this revision,
which stay unrated so a rebuild reproduces the stored ratings). ``sprt_tests.house`` /
``house_pentanomial``: a test that also compares the versions against the house bots.

Revision ID: 0006_automata
Revises: 0005_sprt
Create Date: 2026-12-01 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_automata"
down_revision = "0005_sprt"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("automaton_version_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("automaton_rank", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_matches_automaton_version_id", "bot_versions",
                                    ["automaton_version_id"], ["id"])
    with op.batch_alter_table("sprt_tests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("house", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("house_pentanomial", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sprt_tests", schema=None) as batch_op:
        batch_op.drop_column("house_pentanomial")
        batch_op.drop_column("house")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_constraint("fk_matches_automaton_version_id", type_="foreignkey")
        batch_op.drop_column("automaton_rank")
        batch_op.drop_column("automaton_version_id")
