"""``seasons`` and ``season_entries``: a competition per game over a period, with a submission
deadline, frozen versions, a final evaluation and published final standings (issue 39 item 6;
arena.db.seasons, arena.competition.seasons).

Revision ID: 0024_seasons
Revises: 0021_human_seat_log
Create Date: 2026-12-06 23:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024_seasons"
down_revision = "0023_event_lifecycle"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("variant", sa.String(length=50), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("opens_at", sa.DateTime(), nullable=False),
        sa.Column("deadline", sa.DateTime(), nullable=False),
        sa.Column("top_k", sa.Integer(), nullable=False),
        sa.Column("final_format", sa.String(length=20), nullable=False),
        sa.Column("final_rounds", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("frozen_at", sa.DateTime(), nullable=True),
        sa.Column("final_tournament_id", sa.Integer(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("final_standings", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["final_tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_seasons_game"), "seasons", ["game"], unique=False)
    op.create_table(
        "season_entries",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("entered_at", sa.DateTime(), nullable=False),
        sa.Column("frozen_version_id", sa.Integer(), nullable=True),
        sa.Column("frozen_rating", sa.Float(), nullable=True),
        sa.Column("final_place", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.ForeignKeyConstraint(["frozen_version_id"], ["bot_versions.id"]),
        sa.ForeignKeyConstraint(["season_id"], ["seasons.id"]),
        sa.PrimaryKeyConstraint("season_id", "bot_id"),
    )
    op.create_index(op.f("ix_season_entries_bot_id"), "season_entries", ["bot_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_season_entries_bot_id"), table_name="season_entries")
    op.drop_table("season_entries")
    op.drop_index(op.f("ix_seasons_game"), table_name="seasons")
    op.drop_table("seasons")
