"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 15:17:59.644849
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "name", "game", name="uq_bots_owner_name_game"),
    )
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bots_game"), ["game"], unique=False)

    op.create_table(
        "ladders",
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("variant", sa.String(length=50), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("queue_target", sa.Integer(), nullable=False),
        sa.Column("decision_ms", sa.Integer(), nullable=True),
        sa.Column("bank_ms", sa.Integer(), nullable=True),
        sa.Column("sandbox", sa.Boolean(), nullable=False),
        sa.Column("player_counts", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game"),
    )
    op.create_table(
        "rating_locks",
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game"),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("variant", sa.String(length=50), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("matches_total", sa.Integer(), nullable=False),
        sa.Column("matches_done", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_game"), ["game"], unique=False)

    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("initial_mu", sa.Float(), nullable=False),
        sa.Column("initial_sigma", sa.Float(), nullable=False),
        sa.Column("predecessor_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_id"],
            ["bots.id"],
        ),
        sa.ForeignKeyConstraint(
            ["predecessor_id"],
            ["bot_versions.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "number", name="uq_bot_versions_bot_number"),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_versions_bot_id"), ["bot_id"], unique=False)

    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("variant", sa.String(length=50), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("decision_ms", sa.Integer(), nullable=True),
        sa.Column("bank_ms", sa.Integer(), nullable=True),
        sa.Column("sandbox", sa.Boolean(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=True),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("queued_at", sa.DateTime(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("forfeits", sa.JSON(), nullable=True),
        sa.Column("timings", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("rating_seq", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game", "rating_seq", name="uq_matches_game_rating_seq"),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_matches_game"), ["game"], unique=False)
        batch_op.create_index("ix_matches_status", ["status"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_matches_tournament_id"), ["tournament_id"], unique=False
        )

    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("forfeit", sa.String(length=500), nullable=True),
        sa.Column("mu_before", sa.Float(), nullable=True),
        sa.Column("sigma_before", sa.Float(), nullable=True),
        sa.Column("mu_after", sa.Float(), nullable=True),
        sa.Column("sigma_after", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_match_seats_bot_version_id"), ["bot_version_id"], unique=False
        )

    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rating_history_game"), ["game"], unique=False)
        batch_op.create_index(batch_op.f("ix_rating_history_match_id"), ["match_id"], unique=False)
        batch_op.create_index(
            "ix_rating_history_version_seq", ["bot_version_id", "seq"], unique=False
        )

    op.create_table(
        "ratings",
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=50), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("provisional", sa.Boolean(), nullable=False),
        sa.Column("games_played", sa.Integer(), nullable=False),
        sa.Column("distinct_opponents", sa.Integer(), nullable=False),
        sa.Column("opponent_counts", sa.JSON(), nullable=False),
        sa.Column("seat_counts", sa.JSON(), nullable=False),
        sa.Column("player_counts", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.PrimaryKeyConstraint("bot_version_id", "game"),
    )
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
        ),
        sa.PrimaryKeyConstraint("tournament_id", "bot_version_id"),
    )


def downgrade() -> None:
    op.drop_table("tournament_entries")
    op.drop_table("ratings")
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_history_version_seq")
        batch_op.drop_index(batch_op.f("ix_rating_history_match_id"))
        batch_op.drop_index(batch_op.f("ix_rating_history_game"))

    op.drop_table("rating_history")
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_seats_bot_version_id"))

    op.drop_table("match_seats")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_tournament_id"))
        batch_op.drop_index("ix_matches_status")
        batch_op.drop_index(batch_op.f("ix_matches_game"))

    op.drop_table("matches")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_versions_bot_id"))

    op.drop_table("bot_versions")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_game"))

    op.drop_table("tournaments")
    op.drop_table("rating_locks")
    op.drop_table("ladders")
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bots_game"))

    op.drop_table("bots")
