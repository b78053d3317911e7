"""reviews of finished hands, kept with their game

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 13:40:00

A review (every decision of the person in one hand, rated by Hard's search) is computed
once in the bot pool and kept here, keyed by the game and the hand, with the hand's move
codes' digest: an undo in a practice game that changes the hand makes the stored review
stale, and it is computed again.  Reviews go with their game (ON DELETE CASCADE).
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'hand_review',
        sa.Column('game_id', sa.String(length=32), sa.ForeignKey('game.id', ondelete='CASCADE'), nullable=False),
        sa.Column('hand', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('data', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('game_id', 'hand'),
    )


def downgrade() -> None:
    op.drop_table('hand_review')
