"""cart reminders (issue 34): when a cart was last reminded about, and the customer's choice to get them

Revision ID: 34c_cart_reminders
Revises: 33r_returns_refunds
Create Date: 2026-11-27 18:00:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '34c_cart_reminders'
down_revision: Union[str, None] = '33r_returns_refunds'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('cart', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reminded_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    # Existing customers get reminders, as new ones do (the default is on).
    with op.batch_alter_table('notification_preference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('cart_reminders', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('notification_preference', schema=None) as batch_op:
        batch_op.drop_column('cart_reminders')
    with op.batch_alter_table('cart', schema=None) as batch_op:
        batch_op.drop_column('reminded_at')
