"""credit-note tax lines: each tax a refund gave back, kept when it is refunded

Revision ID: 36c_credit_note_tax_lines
Revises: 35d_deal_emails
Create Date: 2026-11-28 11:05:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '36c_credit_note_tax_lines'
down_revision: Union[str, None] = '35d_deal_emails'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # Returns refunded before keep None: their notes' lines are computed when read, as before.
    with op.batch_alter_table('order_return', schema=None) as batch_op:
        batch_op.add_column(sa.Column('refund_tax_lines', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('order_return', schema=None) as batch_op:
        batch_op.drop_column('refund_tax_lines')
