"""flash sales (issue 34): a discount window may cap the units one customer buys

Revision ID: 34f_per_customer_limit
Revises: 33d_receipt_numbers
Create Date: 2026-11-27 18:20:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '34f_per_customer_limit'
down_revision: Union[str, None] = '33d_receipt_numbers'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('product', schema=None) as batch_op:
        batch_op.add_column(sa.Column('per_customer_limit', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('product', schema=None) as batch_op:
        batch_op.drop_column('per_customer_limit')
