"""flash sales (issue 34): a discount window may cap the units one customer buys

Revision ID: 34f_per_customer_limit
Revises: 34c_cart_reminders
Create Date: 2026-11-27 18:20:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '34f_per_customer_limit'
down_revision: Union[str, None] = '34c_cart_reminders'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column('product', sa.Column('per_customer_limit', sa.Integer(), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN: a batch rebuild of product would trip over the search view and
    # renumber the rowids the SQLite search index is keyed by.
    op.execute('ALTER TABLE product DROP COLUMN per_customer_limit')
