"""The event lifecycle (arena.competition.lifecycle): entries open/closed, the organiser who made
the event, its time control before any match exists, a round deadline; per entry, the round it
joined (late entry) and its withdrawal (when, by whom, why); and ``tournament_audit``, the log of
every organiser action and automatic decision (who, when, why).

Revision ID: 0023_event_lifecycle
Revises: 0021_human_seat_log
Create Date: 2026-12-06 23:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_event_lifecycle"
down_revision = "0022_compact_records"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("entries_open", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("organiser", sa.String(100), nullable=True))
        batch_op.add_column(sa.Column("round_deadline_s", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("decision_ms", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("bank_ms", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("sandbox", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("joined_round", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("withdrawn_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("withdrawn_by", sa.String(100), nullable=True))
        batch_op.add_column(sa.Column("withdrawn_reason", sa.String(500), nullable=True))
    op.create_table(
        "tournament_audit",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("action", sa.String(30), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False, server_default=""),
        sa.Column("detail", sa.JSON(), nullable=True),
    )
    op.create_index("ix_tournament_audit_tournament", "tournament_audit", ["tournament_id", "id"])
    op.create_index("ix_tournament_audit_match", "tournament_audit", ["match_id", "action"])


def downgrade() -> None:
    op.drop_index("ix_tournament_audit_match", table_name="tournament_audit")
    op.drop_index("ix_tournament_audit_tournament", table_name="tournament_audit")
    op.drop_table("tournament_audit")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        for column in ("withdrawn_reason", "withdrawn_by", "withdrawn_at", "joined_round"):
            batch_op.drop_column(column)
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        for column in ("sandbox", "bank_ms", "decision_ms", "round_deadline_s", "organiser", "entries_open"):
            batch_op.drop_column(column)
