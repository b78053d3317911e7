"""players, games and records

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29 19:45:48.480232
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('player',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('fast_play', sa.Boolean(), nullable=False),
    sa.Column('difficulty', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('game',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('player_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('difficulty', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('record', sa.Text(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_game_player_id'), ['player_id'], unique=False)

    op.create_table('record',
    sa.Column('player_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('difficulty', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('played', sa.Integer(), nullable=False),
    sa.Column('won', sa.Integer(), nullable=False),
    sa.Column('best_score', sa.Integer(), nullable=True),
    sa.Column('moons', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
    sa.PrimaryKeyConstraint('player_id', 'difficulty')
    )


def downgrade() -> None:
    op.drop_table('record')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_player_id'))
        batch_op.drop_index(batch_op.f('ix_game_created_at'))

    op.drop_table('game')
    op.drop_table('player')
