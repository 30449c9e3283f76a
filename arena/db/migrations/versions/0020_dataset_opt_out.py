"""``users.dataset_opt_out``: an author who keeps their bots' matches out of the training datasets
(``arena export dataset``, docs/datasets.md). Every account made before opted in, as before.

Revision ID: 0020_dataset_opt_out
Revises: 0019_entries_per_author
Create Date: 2026-12-06 21:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_dataset_opt_out"
down_revision = "0019_entries_per_author"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("dataset_opt_out", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("dataset_opt_out")
