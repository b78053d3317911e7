"""practice games, moons counted as they happen, token revocation, rate-limit buckets

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 05:40:00

Existing games keep ``practice = false`` (they were counted as server-dealt games before
this revision) and start with ``moons_counted = 0``: a game in progress has its earlier
moons counted at its next move, once; a finished game takes no more moves.
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('rate_bucket',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=96), nullable=False),
    sa.Column('tokens', sa.Float(), nullable=False),
    sa.Column('updated', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    with op.batch_alter_table('rate_bucket', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rate_bucket_updated'), ['updated'], unique=False)

    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('practice', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('moons_counted', sa.Integer(), nullable=False, server_default='0'))
        batch_op.create_index(batch_op.f('ix_game_updated_at'), ['updated_at'], unique=False)

    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tokens_valid_after', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('tokens_valid_after')

    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_updated_at'))
        batch_op.drop_column('moons_counted')
        batch_op.drop_column('practice')

    with op.batch_alter_table('rate_bucket', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rate_bucket_updated'))

    op.drop_table('rate_bucket')
