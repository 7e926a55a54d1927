"""catalogue search (FTS5 / tsvector), catalogue version, and one partial index per listing

Revision ID: 5e4a1c2f9b7d
Revises: b379af8c7ccb
Create Date: 2026-11-23 12:40:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from discount_deals.search import index as search_index

revision: str = '5e4a1c2f9b7d'
down_revision: Union[str, None] = 'b379af8c7ccb'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_VISIBLE = {
    "sqlite_where": sa.text("status = 'active' AND is_available = 1"),
    "postgresql_where": sa.text("status = 'active' AND is_available = true"),
}
_SHOWN = ["status", "is_available"]
_INDEXES = [
    ("ix_product_visible_newest", ["created_at", "id", *_SHOWN], _VISIBLE),
    ("ix_product_visible_name", ["name_key", *_SHOWN], _VISIBLE),
    ("ix_product_visible_price", ["effective_price", "name_key", *_SHOWN], _VISIBLE),
    ("ix_product_visible_category_newest", ["category_id", "created_at", "id", *_SHOWN], _VISIBLE),
    ("ix_product_visible_category_name", ["category_id", "name_key", *_SHOWN], _VISIBLE),
    ("ix_product_visible_category_price", ["category_id", "effective_price", "name_key", *_SHOWN], _VISIBLE),
    ("ix_product_created_at_id", ["created_at", "id"], {}),
]


def upgrade() -> None:
    op.drop_index("ix_product_visible_name", table_name="product")
    # Nearly every product is active: this index only lured SQLite away from the listing indexes.
    op.drop_index("ix_product_status", table_name="product")
    # Superseded: names are ordered and found by name_key and the search index, prices by the
    # listing indexes below; each index left costs every insert of a bulk upload.
    op.drop_index("ix_product_name", table_name="product")
    op.drop_index("ix_product_effective_price", table_name="product")
    for name, columns, options in _INDEXES:
        op.create_index(name, "product", columns, unique=False, **options)
    search_index.install(op.get_bind())


def downgrade() -> None:
    search_index.uninstall(op.get_bind())
    for name, _columns, _options in reversed(_INDEXES):
        op.drop_index(name, table_name="product")
    op.create_index("ix_product_status", "product", ["status"], unique=False)
    op.create_index("ix_product_name", "product", ["name"], unique=False)
    op.create_index("ix_product_effective_price", "product", ["effective_price"], unique=False)
    op.create_index("ix_product_visible_name", "product", ["status", "is_available", "name"], unique=False)
