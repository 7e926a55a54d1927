"""product.name_sort: names sort alike on both engines, accents and case aside

Listings sorted by name_key: SQLite compares it byte by byte, so "Éclair" came after "Zobo", and
PostgreSQL by the server's collation (C.UTF-8 as SQLite, en_US "rice oil" after "ricebran"), so
the two could page one catalogue differently. name_sort is the name folded as search folds it
(NFKC, case-blind, accents removed: services.catalog.validation.name_sort), kept by the code that
keeps name_key; names sort by name_sort, then name_key (unique). On PostgreSQL both columns take
the "C" collation (code point order, as SQLite's BINARY), whatever the server's; altering
name_key's means dropping and recreating the catalogue-version trigger that names the column.
The listing indexes that sorted by name_key now sort by name_sort, name_key (same names).

Existing rows are back-filled here, by the rule as it is today: a migration must not change
with the code.

Revision ID: 42s_product_name_sort
Revises: 41w_catalogue_text_width
Create Date: 2026-11-30 10:00:00.000000
"""
import re
import unicodedata
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '42s_product_name_sort'
down_revision: Union[str, None] = '41w_catalogue_text_width'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_VISIBLE = {
    "sqlite_where": sa.text("status = 'active' AND is_available = 1"),
    "postgresql_where": sa.text("status = 'active' AND is_available = true"),
}
_SHOWN = ["status", "is_available"]


def _listing_indexes(*name: str) -> list[tuple[str, list[str]]]:
    return [
        ("ix_product_visible_name", [*name, *_SHOWN]),
        ("ix_product_visible_price", ["effective_price", *name, *_SHOWN]),
        ("ix_product_visible_category_name", ["category_id", *name, *_SHOWN]),
        ("ix_product_visible_category_price", ["category_id", "effective_price", *name, *_SHOWN]),
    ]


# search.index's product_version trigger as it stands at this revision (it names name_key).
_VERSION_TRIGGER = (
    "CREATE TRIGGER product_version AFTER INSERT OR DELETE OR UPDATE OF name, name_key, description, brand, "
    "price, discount_price, effective_price, discount_percent, rating, is_featured, is_available, status, "
    "category_id, created_at, discount_start, discount_end "
    "ON product FOR EACH STATEMENT EXECUTE FUNCTION dd_bump_catalog_version()"
)
LENGTH = 200
BATCH = 1000
_products = sa.table('product', sa.column('id', sa.String), sa.column('name', sa.String),
                     sa.column('name_sort', sa.String))
_JOINERS = frozenset("\u200c\u200d")
_TAG_FLAG = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")
_UNDECOMPOSED = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ɛ": "e", "ɔ": "o",
                               "æ": "ae", "œ": "oe"})


def _visible(text: str) -> str:
    return "".join(char for char in text if char in _JOINERS or unicodedata.category(char) != "Cf")


def _sort_key(name: str) -> str:
    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(name):
        kept += [_visible(name[start:flag.start()]), flag.group()]
        start = flag.end()
    text = unicodedata.normalize("NFKC", "".join([*kept, _visible(name[start:])])).casefold()
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(ch))
    return " ".join(folded.translate(_UNDECOMPOSED).split())[:LENGTH]


def _code_point_text(postgres: bool) -> sa.String:
    return sa.String(length=LENGTH, collation="C" if postgres else None)


def _name_key_collation(postgres: bool, collation: str) -> None:
    if postgres:
        op.execute("DROP TRIGGER IF EXISTS product_version ON product")
        op.execute(f'ALTER TABLE product ALTER COLUMN name_key TYPE VARCHAR({LENGTH}) COLLATE "{collation}"')
        op.execute(_VERSION_TRIGGER)


def _backfill(connection) -> None:
    """A batch of products at a time, by id."""
    update = (sa.update(_products).where(_products.c.id == sa.bindparam('row_id'))
              .values(name_sort=sa.bindparam('sort')))
    last = ""
    while True:
        rows = connection.execute(sa.select(_products.c.id, _products.c.name).where(_products.c.id > last)
                                  .order_by(_products.c.id).limit(BATCH)).all()
        if not rows:
            return
        connection.execute(update, [{"row_id": row.id, "sort": _sort_key(row.name or "")} for row in rows])
        last = rows[-1].id


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for name, _columns in _listing_indexes():
        op.drop_index(name, table_name="product")
    _name_key_collation(postgres, "C")
    # A plain ADD COLUMN: a batch rebuild of product would drop its search triggers.
    op.add_column('product', sa.Column('name_sort', _code_point_text(postgres), server_default='', nullable=False))
    _backfill(op.get_bind())
    for name, columns in _listing_indexes("name_sort", "name_key"):
        op.create_index(name, "product", columns, unique=False, **_VISIBLE)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for name, _columns in _listing_indexes():
        op.drop_index(name, table_name="product")
    # A plain DROP COLUMN: a batch rebuild of product would trip over the search view and
    # renumber the rowids the SQLite search index is keyed by.
    op.execute('ALTER TABLE product DROP COLUMN name_sort')
    _name_key_collation(postgres, "default")
    for name, columns in _listing_indexes("name_key"):
        op.create_index(name, "product", columns, unique=False, **_VISIBLE)
