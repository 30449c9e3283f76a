"""Match seeds of 63 bits: ``matches.seed`` becomes a BIGINT.

A 31-bit seed could be found while the match ran by trying every seed against the public board
of its first decision (see :func:`referee.rng.match_seed`); new seeds have 63 secret bits, which
a 32-bit INTEGER cannot hold. Matches that have not started yet get a new 63-bit seed (nothing
refers to a match's seed before it is played: tournaments and the ladder draw each match's seed on
its own); running and finished matches keep theirs, which their records and replays use.

Revision ID: 0009_seed64
Revises: 0008_web_cover
Create Date: 2026-12-01 07:00:00
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0009_seed64"
down_revision = "0008_web_cover"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=False)
    conn = op.get_bind()
    pending = conn.execute(sa.text("SELECT id FROM matches WHERE status = 'pending'")).scalars().all()
    for match_id in pending:
        conn.execute(sa.text("UPDATE matches SET seed = :seed WHERE id = :id AND status = 'pending'"),
                     {"seed": secrets.randbits(63), "id": match_id})


def downgrade() -> None:
    """Back to INTEGER: only possible while every seed fits 32 bits (a 63-bit seed makes it fail)."""
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=False)
