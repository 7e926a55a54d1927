"""usernames unique in any case, enforced by the database: a unique index on lower(username)

Until now the rule was the code's alone (services/users/fields.username_taken), so on PostgreSQL
two registrations at once as "Kofi" and "kofi" both went through. Accounts that already share a
name in another case keep the oldest one as it is; each later one gets "-2", "-3", ... added
(logged by user id: they sign in by email, and may pick another name in their profile).

Revision ID: 36u_username_any_case
Revises: 36c_credit_note_tax_lines
Create Date: 2026-11-28 13:20:00.000000
"""
import logging
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '36u_username_any_case'
down_revision: Union[str, None] = '36c_credit_note_tax_lines'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

log = logging.getLogger("alembic.36u_username_any_case")
_users = sa.table('user', sa.column('id', sa.String), sa.column('username', sa.String),
                  sa.column('created_at', sa.DateTime))
USERNAME_LIMIT = 150


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(_users.c.id, _users.c.username, sa.func.lower(_users.c.username))
                              .order_by(_users.c.created_at, _users.c.id)).all()

    def folds(name: str, database_fold: str | None = None) -> set[str]:
        # Python's fold and the database's own (PostgreSQL's lower() folds by the C library: "İ"
        # to "i", where Python gives "i̇"; SQLite's folds ASCII only): twins by either are twins.
        if database_fold is None:
            database_fold = connection.scalar(sa.select(sa.func.lower(sa.literal(name))))
        return {name.lower(), database_fold}

    taken = set().union(*(folds(name, fold) for _user_id, name, fold in rows)) if rows else set()
    kept: set[str] = set()
    for user_id, name, fold in rows:
        if not folds(name, fold) & kept:
            kept |= folds(name, fold)
            continue
        number = 2
        while folds(renamed := f"{name[:USERNAME_LIMIT - 8]}-{number}") & taken:
            number += 1
        taken |= folds(renamed)
        kept |= folds(renamed)
        connection.execute(_users.update().where(_users.c.id == user_id).values(username=renamed))
        log.warning("user %s: username %r is another account's in another case; renamed %r", user_id, name, renamed)
    op.create_index('ix_user_username_lower', 'user', [sa.text('lower(username)')], unique=True)


def downgrade() -> None:
    # Renamed accounts keep their new names: both are valid usernames before this revision too.
    op.drop_index('ix_user_username_lower', table_name='user')
