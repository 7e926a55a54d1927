"""user.contact_version: an undo link of an email or phone change works once

Until now an undo link was refused only while the account no longer had the values it undoes,
so after a change, its undo and the same change again, the first link worked a second time.
Every account starts at 0, as the links already sent assume (they name no version).

Revision ID: 37v_contact_version
Revises: 36u_username_any_case
Create Date: 2026-11-28 21:40:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '37v_contact_version'
down_revision: Union[str, None] = '36u_username_any_case'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE (SQLite 3.35+ adds and drops a column in place): a batch operation would copy
# the table on SQLite and lose the expression index on lower(username) (migration 36u).


def upgrade() -> None:
    op.add_column('user', sa.Column('contact_version', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    op.drop_column('user', 'contact_version')
