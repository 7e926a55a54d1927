"""order.return_days: the returns window promised when the order was placed

The window was read from DD_RETURN_DAYS at every request, so lowering the setting closed windows
already promised ("Free returns within 30 days" at the checkout) on orders delivered before the
change. Orders placed before this migration keep no promise (NULL) and follow the setting, as
they did.

Revision ID: 40r_order_return_days
Revises: 39f_refresh_previous_floor
Create Date: 2026-11-29 01:20:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '40r_order_return_days'
down_revision: Union[str, None] = '39f_refresh_previous_floor'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE (SQLite 3.35+ adds and drops a column in place), as 37v does.


def upgrade() -> None:
    op.add_column('order', sa.Column('return_days', sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column('order', 'return_days')
