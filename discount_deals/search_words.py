"""The search vocabulary: every word the search index holds, with how many products hold it.

Typo correction (services/catalog/typos.py) looks candidate words up here. Like the index it
lives outside the SQLModel metadata and is installed, checked and rebuilt through
:mod:`discount_deals.search_index`:

- SQLite: ``product_fts_vocab``, an ``fts5vocab`` table over ``product_fts`` (one row per
  term: ``term``, ``doc`` products, ``cnt`` occurrences). It is a view of the index itself, so
  the index's triggers keep it current and it can never be out of step.
- PostgreSQL: ``search_word (word, docs)``, the lexemes of ``product.search_vector`` with
  their product counts, kept by statement-level triggers on ``product`` that add up each
  statement's changes (a bulk import's chunk is one upsert, not one per row). Writers of the
  vocabulary take one transaction-level advisory lock, so two transactions that change many
  words in different orders queue instead of deadlocking; updates that leave every
  ``search_vector`` as it was (stock, prices) change nothing and take no lock. ``word`` is in
  the "C" collation, so that the words of one first letter are one range of its primary key.
  A word whose count falls to zero is deleted.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

TABLES = frozenset({"product_fts_vocab", "search_word"})

# --- SQLite ------------------------------------------------------------------------------------

SQLITE_OBJECTS: list[tuple[str, str, str]] = [
    ("table", "product_fts_vocab", "CREATE VIRTUAL TABLE IF NOT EXISTS product_fts_vocab USING fts5vocab(product_fts, row)"),
]

# --- PostgreSQL --------------------------------------------------------------------------------

# Any constant of this app (pg_advisory_xact_lock takes a bigint); not the migrations' key.
_LOCK_KEY = 0x0DD_5EA4

# A statement's added or removed products: +1 or -1 per word for each product holding it.
_PG_ROWS_FUNCTION = """
CREATE OR REPLACE FUNCTION dd_search_words_{event}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE words text[]; deltas integer[];
BEGIN
  IF current_setting('dd.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  SELECT array_agg(d.lexeme ORDER BY d.lexeme), array_agg(d.n ORDER BY d.lexeme) INTO words, deltas
  FROM (SELECT t.lexeme, {sign}count(*)::integer AS n FROM {rows} r, unnest(r.search_vector) t GROUP BY t.lexeme) d;
  PERFORM dd_search_words_apply(words, deltas);
  RETURN NULL;
END $$;
"""

_PG_FUNCTIONS = f"""
CREATE TABLE IF NOT EXISTS search_word (word text COLLATE "C" PRIMARY KEY, docs integer NOT NULL);

CREATE OR REPLACE FUNCTION dd_search_words_apply(p_words text[], p_deltas integer[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE gone text[];
BEGIN
  IF p_words IS NULL THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock({_LOCK_KEY});
  WITH changed AS (
    INSERT INTO search_word AS w (word, docs)
    SELECT u.word, u.delta FROM unnest(p_words, p_deltas) AS u(word, delta) ORDER BY u.word
    ON CONFLICT (word) DO UPDATE SET docs = w.docs + EXCLUDED.docs
    RETURNING w.word, w.docs)
  SELECT array_agg(changed.word) INTO gone FROM changed WHERE changed.docs <= 0;
  IF gone IS NOT NULL THEN
    DELETE FROM search_word WHERE word = ANY(gone) AND docs <= 0;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION dd_search_words_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE words text[]; deltas integer[];
BEGIN
  IF current_setting('dd.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  SELECT array_agg(d.lexeme ORDER BY d.lexeme), array_agg(d.n ORDER BY d.lexeme) INTO words, deltas
  FROM (
    SELECT x.lexeme, sum(x.n)::integer AS n FROM (
      SELECT t.lexeme, 1 AS n FROM before_rows o JOIN after_rows a ON a.id = o.id, unnest(a.search_vector) t
      WHERE o.search_vector IS DISTINCT FROM a.search_vector
      UNION ALL
      SELECT t.lexeme, -1 AS n FROM before_rows o JOIN after_rows a ON a.id = o.id, unnest(o.search_vector) t
      WHERE o.search_vector IS DISTINCT FROM a.search_vector
    ) x GROUP BY x.lexeme HAVING sum(x.n) <> 0
  ) d;
  PERFORM dd_search_words_apply(words, deltas);
  RETURN NULL;
END $$;
"""

_PG_FUNCTIONS += _PG_ROWS_FUNCTION.format(event="insert", sign="", rows="added")
_PG_FUNCTIONS += _PG_ROWS_FUNCTION.format(event="delete", sign="-", rows="removed")

# Transition tables allow neither several events nor a column list per trigger: one trigger
# per event, and the update trigger sees every update (it skips rows whose vector is unchanged).

_PG_TRIGGERS = """
CREATE OR REPLACE TRIGGER product_words_insert AFTER INSERT ON product REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION dd_search_words_insert();
CREATE OR REPLACE TRIGGER product_words_delete AFTER DELETE ON product REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION dd_search_words_delete();
CREATE OR REPLACE TRIGGER product_words_update AFTER UPDATE ON product
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dd_search_words_update();
"""
PG_TRIGGER_NAMES = {("product", "product_words_insert"), ("product", "product_words_delete"),
                    ("product", "product_words_update")}


def pg_install(connection: Connection) -> None:
    """The table, its functions and triggers (idempotent; fills nothing: see :func:`pg_rebuild`)."""
    connection.exec_driver_sql(_PG_FUNCTIONS)
    connection.exec_driver_sql(_PG_TRIGGERS)


def pg_bulk_load(connection: Connection, on: bool) -> None:
    """Suspend (``on``) or resume the word triggers for the rest of the transaction: a bulk load
    adds its words a chunk at a time (:func:`pg_add_products`). With psycopg every row of an
    executemany is a statement of its own, and the statement triggers upserted the same common
    words once per row: thousands of versions of one row in one transaction, each update slower
    than the last (a 50,000-row import did not finish in 13 minutes)."""
    connection.exec_driver_sql(f"SET LOCAL dd.bulk_load = '{'on' if on else 'off'}'")


def pg_add_products(connection: Connection, ids: list[str]) -> None:
    """Count the words of the products ``ids`` (inserted while the triggers were suspended)."""
    if ids:
        connection.execute(
            text(
                "SELECT dd_search_words_apply(array_agg(d.lexeme ORDER BY d.lexeme), array_agg(d.n ORDER BY d.lexeme)) "
                "FROM (SELECT t.lexeme, count(*)::integer AS n FROM product p, unnest(p.search_vector) t "
                "WHERE p.id = ANY(:ids) GROUP BY t.lexeme) d"
            ),
            {"ids": ids},
        )


def pg_rebuild(connection: Connection) -> None:
    """Count every product's words again (after the vectors themselves were rebuilt)."""
    connection.exec_driver_sql("SELECT pg_advisory_xact_lock(%s)" % _LOCK_KEY)
    connection.exec_driver_sql("DELETE FROM search_word")
    connection.exec_driver_sql(
        "INSERT INTO search_word (word, docs) SELECT t.lexeme, count(*) FROM product p, unnest(p.search_vector) t "
        "GROUP BY t.lexeme"
    )


def pg_has_table(connection: Connection) -> bool:
    return connection.exec_driver_sql("SELECT to_regclass('search_word') IS NOT NULL").scalar()


def pg_uninstall(connection: Connection) -> None:
    connection.exec_driver_sql(
        "DROP TRIGGER IF EXISTS product_words_insert ON product; DROP TRIGGER IF EXISTS product_words_delete ON product; "
        "DROP TRIGGER IF EXISTS product_words_update ON product; "
        "DROP FUNCTION IF EXISTS dd_search_words_insert(); DROP FUNCTION IF EXISTS dd_search_words_delete(); "
        "DROP FUNCTION IF EXISTS dd_search_words_update(); "
        "DROP FUNCTION IF EXISTS dd_search_words_apply(text[], integer[]); DROP TABLE IF EXISTS search_word"
    )


def sqlite_uninstall(connection: Connection) -> None:
    for kind, name, _sql in reversed(SQLITE_OBJECTS):
        connection.exec_driver_sql(f"DROP {kind.upper()} IF EXISTS {name}")


def uninstall(connection: Connection) -> None:
    (sqlite_uninstall if connection.dialect.name == "sqlite" else pg_uninstall)(connection)
