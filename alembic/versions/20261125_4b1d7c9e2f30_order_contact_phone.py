"""order contact phone: the number the rider calls (issue 21)

Revision ID: 4b1d7c9e2f30
Revises: 34b88bd65729
Create Date: 2026-11-25 03:20:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '4b1d7c9e2f30'
down_revision: Union[str, None] = '34b88bd65729'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('contact_phone', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('order', schema=None) as batch_op:
        batch_op.drop_column('contact_phone')
