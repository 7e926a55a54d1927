"""mobile money charge steps and test payments

Orders keep what their current mobile-money charge waits for (payment_step: send_otp,
pay_offline or pending) with the provider's words to the shopper (payment_prompt), and whether
it was charged through the fake provider (payment_test: no money moved). Orders of a fake
provider's payments placed before this revision are marked from their payment rows.

Revision ID: a21c0e7f5d93
Revises: 0e6a3606d3e2
Create Date: 2026-11-24 09:00:00.000000
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision: str = 'a21c0e7f5d93'
down_revision: Union[str, None] = '0e6a3606d3e2'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('payment_step', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
        batch_op.add_column(sa.Column('payment_prompt', sa.String(length=300), server_default='', nullable=False))
        batch_op.add_column(sa.Column('payment_test', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.execute(
        'UPDATE "order" SET payment_test = true WHERE id IN '
        "(SELECT order_id FROM payment WHERE provider = 'fake')"
    )


def downgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.drop_column('payment_test')
        batch_op.drop_column('payment_prompt')
        batch_op.drop_column('payment_step')
