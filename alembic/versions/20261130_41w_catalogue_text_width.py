"""catalogue text in ordinary letters: full-width and half-width forms folded

A product named in full-width letters ("Ｒｉｃｅ Ｏｉｌ", pasted from a supplier's site) was found by
search under neither spelling: the index holds the text as stored, and the query side folds what
is typed. services.catalog.fields.fold_width now writes a product's name, brand and description
and a category's name in ordinary characters (the Halfwidth and Fullwidth Forms and the
ideographic space, by NFKC of those characters only: "½" and "㎏" stay as typed). Rows stored
before are rewritten here; the search triggers re-index what changes (SQLite's product_fts and
its vocabulary, PostgreSQL's search_vector and search_word), on UPDATE as on every edit.

Left as they are, and logged by id: a product whose name key is not today's (the later of a
look-alike pair, migration 38k: its full-width name is what tells it from the other) and a
category whose folded name is another's. The rule is written out here as it is today: a
migration must not change with the code.

Revision ID: 41w_catalogue_text_width
Revises: 40r_order_return_days
Create Date: 2026-11-30 09:00:00.000000
"""
import logging
import re
import unicodedata
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '41w_catalogue_text_width'
down_revision: Union[str, None] = '40r_order_return_days'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

log = logging.getLogger("alembic.41w_catalogue_text_width")
_products = sa.table('product', sa.column('id', sa.String), sa.column('name', sa.String),
                     sa.column('name_key', sa.String), sa.column('brand', sa.String),
                     sa.column('description', sa.String))
_categories = sa.table('category', sa.column('id', sa.String), sa.column('name', sa.String))
_WIDTH_FORMS = re.compile("[\u3000\uff01-\uffe2\uffe4-\uffee]+")
_JOINERS = frozenset("\u200c\u200d")
_TAG_FLAG = re.compile("\U0001F3F4[\U000E0020-\U000E007E]+\U000E007F")
KEY_LENGTH = 200
BATCH = 500


def _fold(text: str) -> str:
    if not text or text.isascii():
        return text
    folded = _WIDTH_FORMS.sub(lambda forms: unicodedata.normalize("NFKC", forms.group()), text)
    return unicodedata.normalize("NFC", folded).strip() if folded != text else text


def _visible(text: str) -> str:
    return "".join(char for char in text if char in _JOINERS or unicodedata.category(char) != "Cf")


def _key(name: str) -> str:
    """services.catalog.validation.name_key as migration 38k wrote it."""
    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(name):
        kept += [_visible(name[start:flag.start()]), flag.group()]
        start = flag.end()
    text = unicodedata.normalize("NFKC", "".join([*kept, _visible(name[start:])]))
    return " ".join(text.split()).lower()[:KEY_LENGTH]


def _product_changes(row) -> dict[str, str]:
    changes = {column: _fold(getattr(row, column) or "") for column in ("brand", "description")}
    if row.name_key == _key(row.name or ""):
        changes["name"] = _fold(row.name or "")
    elif _fold(row.name or "") != row.name:
        log.warning("product %s keeps its name: its key is not today's (a look-alike pair)", row.id)
    return {column: value for column, value in changes.items() if value != getattr(row, column)}


def _fold_products(connection) -> None:
    """A batch of products at a time, by id (descriptions may be long)."""
    last = ""
    while True:
        rows = connection.execute(
            sa.select(_products.c.id, _products.c.name, _products.c.name_key, _products.c.brand,
                      _products.c.description)
            .where(_products.c.id > last).order_by(_products.c.id).limit(BATCH)).all()
        if not rows:
            return
        for row in rows:
            changes = _product_changes(row)
            if changes:
                connection.execute(sa.update(_products).where(_products.c.id == row.id).values(**changes))
        last = rows[-1].id


def _fold_categories(connection) -> None:
    rows = connection.execute(sa.select(_categories.c.id, _categories.c.name).order_by(_categories.c.id)).all()
    taken = {row.name for row in rows}
    for row in rows:
        name = _fold(row.name or "")
        if name == row.name:
            continue
        if name in taken:
            log.warning("category %s keeps its name: another category is named %r", row.id, name)
            continue
        connection.execute(sa.update(_categories).where(_categories.c.id == row.id).values(name=name))
        taken.discard(row.name)
        taken.add(name)


def upgrade() -> None:
    connection = op.get_bind()
    _fold_categories(connection)
    _fold_products(connection)


def downgrade() -> None:
    # The text stays as it is: which characters were typed full-width is kept nowhere, and the
    # folded text is what the code before this revision wrote for anything typed plainly.
    pass
