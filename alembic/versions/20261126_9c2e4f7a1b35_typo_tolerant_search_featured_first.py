"""typo-tolerant search: the index's vocabulary; shoppers' default order: featured first (issue 24)

Revision ID: 9c2e4f7a1b35
Revises: 4b1d7c9e2f30
Create Date: 2026-11-26 12:00:00.000000
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from discount_deals.search import index as search_index, words as search_words

revision: str = '9c2e4f7a1b35'
down_revision: Union[str, None] = '4b1d7c9e2f30'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_VISIBLE = {
    "sqlite_where": sa.text("status = 'active' AND is_available = 1"),
    "postgresql_where": sa.text("status = 'active' AND is_available = true"),
}
_SHOWN = ["status", "is_available"]
_INDEXES = [
    ("ix_product_visible_featured", ["is_featured", "created_at", "id", *_SHOWN], _VISIBLE),
    ("ix_product_visible_category_featured", ["category_id", "is_featured", "created_at", "id", *_SHOWN], _VISIBLE),
]


def upgrade() -> None:
    for name, columns, options in _INDEXES:
        op.create_index(name, "product", columns, unique=False, **options)
    # The vocabulary (fts5vocab / search_word with its triggers) and the catalogue version's
    # in-stock trigger; PostgreSQL's word table is then filled from the products' vectors.
    connection = op.get_bind()
    search_index.install_objects(connection)
    if connection.dialect.name != "sqlite":
        search_words.pg_rebuild(connection)


def downgrade() -> None:
    connection = op.get_bind()
    search_words.uninstall(connection)
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("DROP TRIGGER IF EXISTS product_version_stock")
    else:
        connection.exec_driver_sql("DROP TRIGGER IF EXISTS product_version_stock ON product")
    for name, _columns, _options in reversed(_INDEXES):
        op.drop_index(name, table_name="product")
