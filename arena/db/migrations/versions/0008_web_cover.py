"""Covering indexes for the website at 1,000,000 matches: index-only reads of seats and history.

Matches, seats and rating history are written in time order, but a bot's page, its match
history and a tournament read a few hundred rows of them scattered over the whole table: with
plain indexes each row cost a heap page (~300 random pages for a bot's seats, as many for their
matches and its rating history). These indexes hold every column those reads use, so they are
index-only scans of a few contiguous index pages (measured with EXPLAIN (ANALYZE, BUFFERS) on
``arena bench web --keep``'s database; figures in docs/web.md):

* ``ix_match_seats_version_cover`` (``bot_version_id, match_id, seat, rank, score, forfeit``)
  replaces ``ix_match_seats_bot_version_id``: a bot's seats — its results by seat, its
  opponents, its match history and the "wins" filter.
* ``ix_match_seats_match_cover`` (``match_id, seat, bot_version_id, rank, score, forfeit``): the
  seats of given matches — a history page's 50 matches, a bot's opponents, tournament standings.
* ``ix_matches_id_created_players`` (``id, created_at, players``) replaces
  ``ix_matches_id_created``: a bot's matches sorted by time, and its results by player count.
* ``ix_matches_tournament_schedule`` (``tournament_id, round, table, created_at, id, status``)
  replaces ``ix_matches_tournament_id``: a tournament's schedule in page order and its
  finished matches for the standings, without reading the wide match rows.
* ``ix_rating_history_version_cover`` (``bot_version_id, seq, id, match_id, mu, sigma,
  created_at``) replaces ``ix_rating_history_version_seq``: a bot's rating chart.
* ``ix_bot_versions_held`` (``id`` where ``held``): the API leaderboard's token counts held
  versions at most every 50 ms; that was a scan of every version (51 ms at 10,000 versions on
  a busy machine — longer than the 50 ms the token is trusted, so every call paid it).

Revision ID: 0008_web_cover
Revises: 0007_web
Create Date: 2026-12-01 07:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_web_cover"
down_revision = "0007_web"
branch_labels = None
depends_on = None

SEAT_COLUMNS = ["rank", "score", "forfeit"]


def upgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_bot_versions_held",
            ["id"],
            postgresql_where=sa.text("held IS true"),
            sqlite_where=sa.text("held IS 1"),
        )
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_match_seats_bot_version_id")
        batch_op.create_index(
            "ix_match_seats_version_cover", ["bot_version_id", "match_id", "seat", *SEAT_COLUMNS]
        )
        batch_op.create_index(
            "ix_match_seats_match_cover", ["match_id", "seat", "bot_version_id", *SEAT_COLUMNS]
        )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_id_created")
        batch_op.create_index("ix_matches_id_created_players", ["id", "created_at", "players"])
        batch_op.drop_index("ix_matches_tournament_id")
        batch_op.create_index(
            "ix_matches_tournament_schedule",
            ["tournament_id", "round", "table", "created_at", "id", "status"],
        )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_history_version_seq")
        batch_op.create_index(
            "ix_rating_history_version_cover",
            ["bot_version_id", "seq", "id", "match_id", "mu", "sigma", "created_at"],
        )


def downgrade() -> None:
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_history_version_cover")
        batch_op.create_index("ix_rating_history_version_seq", ["bot_version_id", "seq"])
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_tournament_schedule")
        batch_op.create_index("ix_matches_tournament_id", ["tournament_id"])
        batch_op.drop_index("ix_matches_id_created_players")
        batch_op.create_index("ix_matches_id_created", ["id", "created_at"])
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_match_seats_match_cover")
        batch_op.drop_index("ix_match_seats_version_cover")
        batch_op.create_index("ix_match_seats_bot_version_id", ["bot_version_id"])
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_index("ix_bot_versions_held")
