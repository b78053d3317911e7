"""tables for friends: how many pages of a seat's person are connected

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 16:45:00

A person with the table open in two tabs who closes one is still there: the seat counts
the event streams open for its person (in every server process), and only the last one
closing starts the reload's grace (``connected_until`` stays the lease that a crashed
process's streams run out by).
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('table_seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('connections', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('table_seat', schema=None) as batch_op:
        batch_op.drop_column('connections')
