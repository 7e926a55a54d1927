"""deal emails: a customer who takes deal alerts by SMS can unsubscribe from the day's emails

Revision ID: 35d_deal_emails
Revises: 35p_account_phones_e164
Create Date: 2026-11-28 07:20:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '35d_deal_emails'
down_revision: Union[str, None] = '35p_account_phones_e164'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # Existing customers keep the emails they get today (the default is on).
    with op.batch_alter_table('notification_preference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('deal_emails', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('notification_preference', schema=None) as batch_op:
        batch_op.drop_column('deal_emails')
