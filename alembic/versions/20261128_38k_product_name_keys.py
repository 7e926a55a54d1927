"""product.name_key by today's rule: look-alike names are one name

services.catalog.validation.name_key now drops invisible characters and compares names as NFKC
writes them ("Ｒｉｃｅ", "Rice\u200b" and "Rice" are one key). Keys stored before are recomputed,
so that a new "Rice" is refused beside an old "Ｒｉｃｅ". Two products that already share the new
key (a look-alike pair made before) cannot both have it: the older keeps it, the later keeps its
old key and is logged by id (an admin may rename it; an edit that keeps its name stays allowed).
The rule is written out here as it is today: a migration must not change with the code.

Revision ID: 38k_product_name_keys
Revises: 37v_contact_version
Create Date: 2026-11-28 22:20:00.000000
"""
import logging
import re
import unicodedata
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '38k_product_name_keys'
down_revision: Union[str, None] = '37v_contact_version'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

log = logging.getLogger("alembic.38k_product_name_keys")
_products = sa.table('product', sa.column('id', sa.String), sa.column('name', sa.String),
                     sa.column('name_key', sa.String), sa.column('created_at', sa.DateTime))
_JOINERS = frozenset("\u200c\u200d")
_TAG_FLAG = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")
KEY_LENGTH = 200


def _visible(text: str) -> str:
    return "".join(char for char in text if char in _JOINERS or unicodedata.category(char) != "Cf")


def _key(name: str) -> str:
    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(name):
        kept += [_visible(name[start:flag.start()]), flag.group()]
        start = flag.end()
    text = unicodedata.normalize("NFKC", "".join([*kept, _visible(name[start:])]))
    return " ".join(text.split()).lower()[:KEY_LENGTH]


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(_products.c.id, _products.c.name, _products.c.name_key)
                              .order_by(_products.c.created_at, _products.c.id)).all()
    taken = {row.name_key for row in rows}
    for row in rows:
        key = _key(row.name or "")
        if key == row.name_key:
            continue
        if key in taken:
            log.warning("product %s keeps its name key: another product's name looks the same", row.id)
            continue
        connection.execute(sa.update(_products).where(_products.c.id == row.id).values(name_key=key))
        taken.discard(row.name_key)
        taken.add(key)


def downgrade() -> None:
    # The keys stay as they are: the old rule is kept nowhere, and a key by today's rule differs
    # from it only for a name holding invisible or compatibility characters.
    pass
