"""refresh_family.previous_floor: the leeway covers only the tokens the latest rotation retired

A retired refresh token was accepted for 30 seconds after the family's latest rotation, however
long ago it was itself retired: a thief who refreshed within 30 seconds of each of the owner's
refreshes was never caught (a probe presented a token retired an hour before). The floor the
latest rotation started from tells the tokens it retired (from it up) from older ones. Families
start at 0, which keeps the leeway their last rotation gave, once.

Revision ID: 39f_refresh_previous_floor
Revises: 38k_product_name_keys
Create Date: 2026-11-29 01:00:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '39f_refresh_previous_floor'
down_revision: Union[str, None] = '38k_product_name_keys'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE (SQLite 3.35+ adds and drops a column in place), as 37v does.


def upgrade() -> None:
    op.add_column('refresh_family', sa.Column('previous_floor', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    op.drop_column('refresh_family', 'previous_floor')
