"""the person's seat of each game

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:40:00

Every game stored before this revision was played from seat 0 (South): existing rows
take ``seat = 0``, so they load and play on exactly as before.
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seat', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_column('seat')
