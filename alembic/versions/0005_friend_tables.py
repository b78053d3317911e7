"""tables for friends: the table, its seats, and each game's table

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:40:00

Games stored before this revision are games against the computer: ``table_id`` stays
NULL for them.
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'friend_table',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('token', sa.String(length=64), nullable=False),
        sa.Column('host_id', sa.String(length=32), nullable=False),
        sa.Column('difficulty', sa.String(length=16), nullable=False),
        sa.Column('rules', sa.Text(), nullable=False),
        sa.Column('turn_seconds', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('game_id', sa.String(length=32), nullable=True),
        sa.Column('rev', sa.Integer(), nullable=False),
        sa.Column('waiting', sa.Integer(), nullable=False),
        sa.Column('deadline', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('seen_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['host_id'], ['player.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token'),
    )
    with op.batch_alter_table('friend_table', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_friend_table_host_id'), ['host_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_friend_table_deadline'), ['deadline'], unique=False)
        batch_op.create_index(batch_op.f('ix_friend_table_updated_at'), ['updated_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_friend_table_seen_at'), ['seen_at'], unique=False)
    op.create_table(
        'table_seat',
        sa.Column('table_id', sa.String(length=32), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('person', sa.Boolean(), nullable=False),
        sa.Column('player_id', sa.String(length=32), nullable=True),
        sa.Column('name', sa.String(length=64), nullable=True),
        sa.Column('connected_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('moons_counted', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id']),
        sa.ForeignKeyConstraint(['table_id'], ['friend_table.id']),
        sa.PrimaryKeyConstraint('table_id', 'seat'),
    )
    with op.batch_alter_table('table_seat', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_table_seat_player_id'), ['player_id'], unique=False)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('table_id', sa.String(length=32), nullable=True))
        batch_op.create_index(batch_op.f('ix_game_table_id'), ['table_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_table_id'))
        batch_op.drop_column('table_id')
    op.drop_table('table_seat')
    op.drop_table('friend_table')
