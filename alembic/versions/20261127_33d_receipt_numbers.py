"""numbered receipts (issue 33): an order's receipt number and when it was given, a counter per prefix and year

Revision ID: 33d_receipt_numbers
Revises: 33d_order_tax_lines
Create Date: 2026-11-27 15:30:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '33d_receipt_numbers'
down_revision: Union[str, None] = '33d_order_tax_lines'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'receipt_counter',
        sa.Column('prefix', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('year', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('last_number', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('prefix', 'year', name=op.f('pk_receipt_counter')),
    )
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('receipt_number', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch_op.add_column(sa.Column('receipt_issued_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_order_receipt_number'), ['receipt_number'])


def downgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_order_receipt_number'), type_='unique')
        batch_op.drop_column('receipt_issued_at')
        batch_op.drop_column('receipt_number')
    op.drop_table('receipt_counter')
