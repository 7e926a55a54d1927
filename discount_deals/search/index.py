"""The database objects behind catalogue search and the listing caches, for SQLite and PostgreSQL.

They live outside the SQLModel metadata (Alembic's comparison skips them through
:func:`include_name`) and are created by a migration and checked again by every ``migrate``:

- ``catalog_version``: one row whose ``version`` changes, in the same transaction, whenever a
  product or category changes in a way a listing could show (not on stock changes). Listing
  caches in each worker compare it before trusting a cached count. It takes a random value
  rather than counting up, so a version seen inside a transaction that rolls back is never
  seen again.
- ``catalog_version`` also changes when a product sells out or comes back in stock (listings
  filter and count products in stock), but not on other stock changes.
- SQLite: ``product_fts``, an FTS5 index with external content (the view
  ``product_search_source``: a product's name, brand, category name and description, keyed by
  the product's rowid), tokenised by ``unicode61`` with accents removed and prefix indexes,
  kept in step by triggers on ``product`` and ``category``.
- PostgreSQL: ``product.search_vector``, a weighted ``tsvector`` (name A, brand and category B,
  description C) kept by triggers, with a GIN index. Text is folded (``unaccent`` when the
  extension can be created, else a built-in accent map) and split on anything that is not a
  letter or digit, so both engines see the same words.

- The vocabulary of the index (its words and how many products hold each), for typo
  correction: see :mod:`discount_deals.search.words`.

SQLite's external content is keyed by rowid, which a table rebuild (a batch migration, VACUUM)
may renumber: :func:`ensure` recreates any missing trigger and rebuilds the index when its
integrity check fails, and ``migrate`` calls it after every upgrade.
"""

from __future__ import annotations

import logging
import unicodedata

from sqlalchemy import text
from sqlalchemy.engine import Connection

from . import words as search_words

log = logging.getLogger("discount_deals.search_index")

TABLES = frozenset(
    {"catalog_version", "product_fts", "product_fts_data", "product_fts_idx", "product_fts_docsize", "product_fts_config"}
) | search_words.TABLES
COLUMNS = frozenset({("product", "search_vector")})
INDEXES = frozenset({"ix_product_search_vector"})

# Listing-relevant product columns: a change to any of them changes the catalogue version.
LISTED_COLUMNS = (
    "name", "name_key", "description", "brand", "price", "discount_price", "effective_price", "discount_percent",
    "rating", "is_featured", "is_available", "status", "category_id", "created_at", "discount_start", "discount_end",
)


def include_name(name: str | None, type_: str, parent_names: dict) -> bool:
    """Alembic hook: leave the search objects out of autogenerate comparisons."""
    if type_ == "table":
        return name not in TABLES
    if type_ == "column":
        return (parent_names.get("table_name"), name) not in COLUMNS
    if type_ == "index":
        return name not in INDEXES
    return True


# --- SQLite ------------------------------------------------------------------------------------

# A bulk import sets catalog_version.bulk inside its own transaction, indexes its rows a chunk at
# a time and changes the version once (search/bulk_index.py BulkLoad); every other insert goes
# through the triggers.
_UNLESS_BULK = "WHEN coalesce((SELECT bulk FROM catalog_version WHERE id = 1), 0) = 0"
_SQLITE_FTS_VALUES = "{p}.name, {p}.brand, (SELECT name FROM category WHERE id = {p}.category_id), {p}.description"
_SQLITE_OBJECTS: list[tuple[str, str, str]] = [
    (
        "table",
        "catalog_version",
        "CREATE TABLE IF NOT EXISTS catalog_version (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "version INTEGER NOT NULL, bulk INTEGER NOT NULL DEFAULT 0)",
    ),
    (
        "view",
        "product_search_source",
        "CREATE VIEW IF NOT EXISTS product_search_source AS SELECT p.rowid AS rowid, p.name AS name, "
        "p.brand AS brand, c.name AS category, p.description AS description "
        "FROM product p JOIN category c ON c.id = p.category_id",
    ),
    (
        "table",
        "product_fts",
        "CREATE VIRTUAL TABLE IF NOT EXISTS product_fts USING fts5(name, brand, category, description, "
        "content='product_search_source', content_rowid='rowid', "
        "tokenize='unicode61 remove_diacritics 2', prefix='2 3 4')",
    ),
    (
        "trigger",
        "product_search_insert",
        f"CREATE TRIGGER IF NOT EXISTS product_search_insert AFTER INSERT ON product {_UNLESS_BULK} BEGIN "
        "INSERT INTO product_fts (rowid, name, brand, category, description) "
        f"VALUES (new.rowid, {_SQLITE_FTS_VALUES.format(p='new')}); END",
    ),
    (
        "trigger",
        "product_search_delete",
        "CREATE TRIGGER IF NOT EXISTS product_search_delete AFTER DELETE ON product BEGIN "
        "INSERT INTO product_fts (product_fts, rowid, name, brand, category, description) "
        f"VALUES ('delete', old.rowid, {_SQLITE_FTS_VALUES.format(p='old')}); END",
    ),
    (
        "trigger",
        "product_search_update",
        "CREATE TRIGGER IF NOT EXISTS product_search_update AFTER UPDATE OF name, brand, description, category_id "
        "ON product BEGIN "
        "INSERT INTO product_fts (product_fts, rowid, name, brand, category, description) "
        f"VALUES ('delete', old.rowid, {_SQLITE_FTS_VALUES.format(p='old')}); "
        "INSERT INTO product_fts (rowid, name, brand, category, description) "
        f"VALUES (new.rowid, {_SQLITE_FTS_VALUES.format(p='new')}); END",
    ),
    (
        "trigger",
        "category_search_rename",
        "CREATE TRIGGER IF NOT EXISTS category_search_rename AFTER UPDATE OF name ON category BEGIN "
        "INSERT INTO product_fts (product_fts, rowid, name, brand, category, description) "
        "SELECT 'delete', p.rowid, p.name, p.brand, old.name, p.description FROM product p "
        "WHERE p.category_id = old.id; "
        "INSERT INTO product_fts (rowid, name, brand, category, description) "
        "SELECT p.rowid, p.name, p.brand, new.name, p.description FROM product p WHERE p.category_id = new.id; END",
    ),
]
_SQLITE_OBJECTS += search_words.SQLITE_OBJECTS
_BUMP_SQLITE = "UPDATE catalog_version SET version = random() WHERE id = 1;"
for _name, _event in (
    ("product_version_insert", f"AFTER INSERT ON product {_UNLESS_BULK}"),
    ("product_version_delete", "AFTER DELETE ON product"),
    ("product_version_update", f"AFTER UPDATE OF {', '.join(LISTED_COLUMNS)} ON product"),
    ("product_version_stock", "AFTER UPDATE OF stock ON product WHEN (old.stock > 0) <> (new.stock > 0)"),
    ("category_version_insert", "AFTER INSERT ON category"),
    ("category_version_delete", "AFTER DELETE ON category"),
    ("category_version_update", "AFTER UPDATE ON category"),
):
    _SQLITE_OBJECTS.append(("trigger", _name, f"CREATE TRIGGER IF NOT EXISTS {_name} {_event} BEGIN {_BUMP_SQLITE} END"))


def _sqlite_missing(connection: Connection) -> list[str]:
    present = {
        (kind, name)
        for kind, name in connection.exec_driver_sql("SELECT type, name FROM sqlite_master").all()
    }
    return [name for kind, name, _sql in _SQLITE_OBJECTS if (kind, name) not in present]


def _sqlite_install(connection: Connection) -> None:
    for _kind, _name, sql in _SQLITE_OBJECTS:
        connection.exec_driver_sql(sql)
    connection.exec_driver_sql("INSERT OR IGNORE INTO catalog_version (id, version) VALUES (1, random())")


def _sqlite_rebuild(connection: Connection) -> None:
    connection.exec_driver_sql("INSERT INTO product_fts (product_fts) VALUES ('rebuild')")


def _sqlite_index_ok(connection: Connection) -> bool:
    try:
        connection.exec_driver_sql("INSERT INTO product_fts (product_fts, rank) VALUES ('integrity-check', 1)")
    except Exception:  # sqlite3.DatabaseError: "database disk image is malformed" when out of step
        return False
    return True


def _sqlite_uninstall(connection: Connection) -> None:
    for kind, name, _sql in reversed(_SQLITE_OBJECTS):
        connection.exec_driver_sql(f"DROP {kind.upper()} IF EXISTS {name}")


# --- PostgreSQL --------------------------------------------------------------------------------

# Used when the unaccent extension cannot be created: the accented Latin letters of the
# languages a Ghanaian catalogue meets (English, French, Portuguese, Spanish, German, Akan's ɛ ɔ).
_ACCENTED = "àáâãäåāăąçćčďèéêëēėęěìíîïīįľłñńňòóôõöøōőŕřśšşťùúûüūůűųýÿźżžɛɔ"
_UNDECOMPOSABLE = {"ł": "l", "ø": "o", "ɛ": "e", "ɔ": "o"}
_PLAIN = "".join(_UNDECOMPOSABLE.get(ch) or unicodedata.normalize("NFKD", ch)[0] for ch in _ACCENTED)

_PG_FUNCTIONS = """
CREATE OR REPLACE FUNCTION dd_search_vector(p_name text, p_brand text, p_category text, p_description text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', dd_search_fold(p_name)), 'A')
      || setweight(to_tsvector('simple', dd_search_fold(p_brand) || ' ' || dd_search_fold(p_category)), 'B')
      || setweight(to_tsvector('simple', dd_search_fold(p_description)), 'C')
$$;

CREATE OR REPLACE FUNCTION dd_product_search_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector := dd_search_vector(
    NEW.name, NEW.brand, (SELECT c.name FROM category c WHERE c.id = NEW.category_id), NEW.description);
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION dd_category_search_rename() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE product SET search_vector = dd_search_vector(name, brand, NEW.name, description)
  WHERE category_id = NEW.id;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dd_bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_version SET version = floor(random() * 9.0e18)::bigint WHERE id = 1;
  RETURN NULL;
END $$;
"""

_BUMP_PG = "UPDATE catalog_version SET version = floor(random() * 9.0e18)::bigint WHERE id = 1"
_PG_TRIGGERS = f"""
CREATE OR REPLACE TRIGGER product_search BEFORE INSERT OR UPDATE OF name, brand, description, category_id
  ON product FOR EACH ROW EXECUTE FUNCTION dd_product_search_row();
CREATE OR REPLACE TRIGGER category_search_rename AFTER UPDATE OF name ON category
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION dd_category_search_rename();
CREATE OR REPLACE TRIGGER product_version AFTER INSERT OR DELETE OR UPDATE OF {", ".join(LISTED_COLUMNS)}
  ON product FOR EACH STATEMENT EXECUTE FUNCTION dd_bump_catalog_version();
CREATE OR REPLACE TRIGGER category_version AFTER INSERT OR DELETE OR UPDATE ON category
  FOR EACH STATEMENT EXECUTE FUNCTION dd_bump_catalog_version();
CREATE OR REPLACE TRIGGER product_version_stock AFTER UPDATE OF stock ON product
  FOR EACH ROW WHEN ((OLD.stock > 0) IS DISTINCT FROM (NEW.stock > 0)) EXECUTE FUNCTION dd_bump_catalog_version();
"""
_PG_TRIGGER_NAMES = {
    ("product", "product_search"),
    ("category", "category_search_rename"),
    ("product", "product_version"),
    ("category", "category_version"),
    ("product", "product_version_stock"),
    *search_words.PG_TRIGGER_NAMES,
}


def _pg_fold_function(connection: Connection) -> None:
    """dd_search_fold(text): lower case, accents removed, non-alphanumerics as blanks."""
    with_unaccent = True
    savepoint = connection.begin_nested()
    try:
        connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS unaccent")
        savepoint.commit()
    except Exception as exc:  # not installed or not allowed: fall back to our accent map
        savepoint.rollback()
        with_unaccent = False
        log.warning("unaccent extension unavailable (%s); using the built-in accent map", exc.__class__.__name__)
    if with_unaccent:
        # The two-argument form names the dictionary, which makes the function safe to inline.
        folded = "unaccent('unaccent'::regdictionary, lower(coalesce(value, '')))"
    else:
        folded = f"translate(lower(coalesce(value, '')), '{_ACCENTED}', '{_PLAIN}')"
    connection.exec_driver_sql(
        "CREATE OR REPLACE FUNCTION dd_search_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE "
        f"AS $$ SELECT regexp_replace({folded}, '[^[:alnum:]]+', ' ', 'g') $$"
    )


def _pg_install(connection: Connection) -> None:
    connection.exec_driver_sql(
        "CREATE TABLE IF NOT EXISTS catalog_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)"
    )
    connection.exec_driver_sql(
        "INSERT INTO catalog_version (id, version) VALUES (1, floor(random() * 9.0e18)::bigint) "
        "ON CONFLICT (id) DO NOTHING"
    )
    connection.exec_driver_sql("ALTER TABLE product ADD COLUMN IF NOT EXISTS search_vector tsvector")
    _pg_fold_function(connection)
    connection.exec_driver_sql(_PG_FUNCTIONS)
    connection.exec_driver_sql(_PG_TRIGGERS)
    connection.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_product_search_vector ON product USING gin (search_vector)"
    )
    search_words.pg_install(connection)


def _pg_missing(connection: Connection) -> list[str]:
    present = set(
        connection.exec_driver_sql(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal"
        ).all()
    )
    missing = [name for pair in _PG_TRIGGER_NAMES if pair not in present for name in [pair[1]]]
    has_column = connection.exec_driver_sql(
        "SELECT 1 FROM information_schema.columns WHERE table_name = 'product' AND column_name = 'search_vector'"
    ).first()
    if has_column is None:
        missing.append("product.search_vector")
    if not search_words.pg_has_table(connection):
        missing.append("search_word")
    return missing


def _pg_rebuild(connection: Connection) -> None:
    connection.exec_driver_sql(
        "UPDATE product p SET search_vector = dd_search_vector(p.name, p.brand, c.name, p.description) "
        "FROM category c WHERE c.id = p.category_id"
    )
    search_words.pg_rebuild(connection)


def _pg_uninstall(connection: Connection) -> None:
    search_words.pg_uninstall(connection)
    connection.exec_driver_sql(
        "DROP TRIGGER IF EXISTS product_search ON product; DROP TRIGGER IF EXISTS product_version ON product; "
        "DROP TRIGGER IF EXISTS product_version_stock ON product; "
        "DROP TRIGGER IF EXISTS category_search_rename ON category; "
        "DROP TRIGGER IF EXISTS category_version ON category; "
        "DROP INDEX IF EXISTS ix_product_search_vector; ALTER TABLE product DROP COLUMN IF EXISTS search_vector; "
        "DROP FUNCTION IF EXISTS dd_product_search_row(); DROP FUNCTION IF EXISTS dd_category_search_rename(); "
        "DROP FUNCTION IF EXISTS dd_bump_catalog_version(); "
        "DROP FUNCTION IF EXISTS dd_search_vector(text, text, text, text); "
        "DROP FUNCTION IF EXISTS dd_search_fold(text); DROP TABLE IF EXISTS catalog_version"
    )


# --- entry points ------------------------------------------------------------------------------


def install(connection: Connection) -> None:
    """Create the objects (idempotent) and index every existing product."""
    if connection.dialect.name == "sqlite":
        _sqlite_install(connection)
        _sqlite_rebuild(connection)
    else:
        _pg_install(connection)
        _pg_rebuild(connection)


def install_objects(connection: Connection) -> None:
    """Create any missing object (idempotent) without indexing the products again: for a
    migration that adds objects to a database whose index is current."""
    (_sqlite_install if connection.dialect.name == "sqlite" else _pg_install)(connection)


def uninstall(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        _sqlite_uninstall(connection)
    else:
        _pg_uninstall(connection)


def rebuild(connection: Connection) -> None:
    """Index every product again (the ``reindex-search`` command: after a VACUUM, or by hand)."""
    sqlite = connection.dialect.name == "sqlite"
    (_sqlite_install if sqlite else _pg_install)(connection)
    (_sqlite_rebuild if sqlite else _pg_rebuild)(connection)
    connection.exec_driver_sql(_BUMP_SQLITE if sqlite else _BUMP_PG)


def ensure(connection: Connection, *, check_index: bool = True) -> list[str]:
    """Recreate missing objects and, when anything was missing or the index is out of step
    with the products, rebuild the index. Returns what was repaired (empty when all was well)."""
    sqlite = connection.dialect.name == "sqlite"
    missing = _sqlite_missing(connection) if sqlite else _pg_missing(connection)
    if missing:
        log.warning("search index objects missing (%s): recreating them", ", ".join(missing))
        (_sqlite_install if sqlite else _pg_install)(connection)
    stale = sqlite and check_index and not missing and not _sqlite_index_ok(connection)
    if missing or stale:
        (_sqlite_rebuild if sqlite else _pg_rebuild)(connection)
        # Counts cached from the stale index must not outlive it.
        connection.exec_driver_sql(_BUMP_SQLITE if sqlite else _BUMP_PG)
    return [*missing, *(["product_fts (rebuilt)"] if stale else [])]


def catalog_version(connection: Connection) -> int | None:
    """The current catalogue version (None when the table is missing or empty)."""
    return connection.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar()
