"""The search vocabulary: every word the search index holds, with how many products hold it.

Typo correction (services/catalog/typos.py) looks candidate words up here. Like the index it
lives outside the SQLModel metadata and is installed, checked and rebuilt through
:mod:`discount_deals.search.index`:

Besides how many products hold a word, it tells whether any holds it in its name, and in its
name, brand or category: suggestions then skip a query that cannot match (PostgreSQL cannot
tell so for a word start, and may walk a whole index to find out).

- SQLite: ``product_fts_vocab``, an ``fts5vocab`` table over ``product_fts`` (one row per
  term: ``term``, ``doc`` products, ``cnt`` occurrences), and ``product_fts_vocab_col`` (one
  row per term and column). They are views of the index itself, so the index's triggers keep
  them current and they can never be out of step.
- PostgreSQL: ``search_word (word, docs, in_name, in_named)``, the lexemes of
  ``product.search_vector`` with their product counts (all, by weight A: the name, and A or B:
  name, brand or category), kept by statement-level triggers on ``product`` that add up each
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

TABLES = frozenset({"product_fts_vocab", "product_fts_vocab_col", "search_word"})

# --- SQLite ------------------------------------------------------------------------------------

SQLITE_OBJECTS: list[tuple[str, str, str]] = [
    ("table", "product_fts_vocab", "CREATE VIRTUAL TABLE IF NOT EXISTS product_fts_vocab USING fts5vocab(product_fts, row)"),
    ("table", "product_fts_vocab_col",
     "CREATE VIRTUAL TABLE IF NOT EXISTS product_fts_vocab_col USING fts5vocab(product_fts, col)"),
]

# --- PostgreSQL --------------------------------------------------------------------------------

# Any constant of this app (pg_advisory_xact_lock takes a bigint); not the migrations' key.
_LOCK_KEY = 0x0DD_5EA4

_IN_NAME = "'A' = ANY(t.weights)"  # weight A: the name; B: the brand and the category
_IN_NAMED = "'A' = ANY(t.weights) OR 'B' = ANY(t.weights)"


def _lexemes(source: str, vector: str, sign: str = "", where: str = "") -> str:
    """One row per word of each vector of ``source``: +1 (or -1) product, in its name, in its name/brand/category."""
    return (f"SELECT t.lexeme, {sign}1 AS n, {sign}({_IN_NAME})::integer AS a, {sign}({_IN_NAMED})::integer AS ab "
            f"FROM {source}, unnest({vector}) t {where}")


def _deltas(*parts: str) -> str:
    """The changes of each word's counts, from :func:`_lexemes` rows."""
    return ("SELECT x.lexeme, sum(x.n)::integer AS n, sum(x.a)::integer AS a, sum(x.ab)::integer AS ab FROM ("
            + " UNION ALL ".join(parts)
            + ") x GROUP BY x.lexeme HAVING sum(x.n) <> 0 OR sum(x.a) <> 0 OR sum(x.ab) <> 0")


def _apply(deltas: str) -> str:
    return ("dd_search_words_apply(array_agg(d.lexeme ORDER BY d.lexeme), array_agg(d.n ORDER BY d.lexeme), "
            f"array_agg(d.a ORDER BY d.lexeme), array_agg(d.ab ORDER BY d.lexeme)) FROM ({deltas}) d")


_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION dd_search_words_{event}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('dd.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM {apply};
  RETURN NULL;
END $$;
"""
_CHANGED = "before_rows o JOIN after_rows a ON a.id = o.id"
_CHANGED_ONLY = "WHERE o.search_vector IS DISTINCT FROM a.search_vector"

_PG_FUNCTIONS = f"""
CREATE TABLE IF NOT EXISTS search_word (
  word text COLLATE "C" PRIMARY KEY, docs integer NOT NULL,
  in_name integer NOT NULL DEFAULT 0, in_named integer NOT NULL DEFAULT 0);

CREATE OR REPLACE FUNCTION dd_search_words_apply(
  p_words text[], p_docs integer[], p_names integer[], p_nameds integer[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE gone text[];
BEGIN
  IF p_words IS NULL THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock({_LOCK_KEY});
  WITH changed AS (
    INSERT INTO search_word AS w (word, docs, in_name, in_named)
    SELECT u.word, u.docs, u.names, u.nameds FROM unnest(p_words, p_docs, p_names, p_nameds) AS u(word, docs, names, nameds)
    ORDER BY u.word
    ON CONFLICT (word) DO UPDATE SET docs = w.docs + EXCLUDED.docs, in_name = w.in_name + EXCLUDED.in_name,
      in_named = w.in_named + EXCLUDED.in_named
    RETURNING w.word, w.docs)
  SELECT array_agg(changed.word) INTO gone FROM changed WHERE changed.docs <= 0;
  IF gone IS NOT NULL THEN
    DELETE FROM search_word WHERE word = ANY(gone) AND docs <= 0;
  END IF;
END $$;
""" + "".join(
    _TRIGGER_FUNCTION.format(event=event, apply=_apply(deltas))
    for event, deltas in (
        ("insert", _deltas(_lexemes("added r", "r.search_vector"))),
        ("delete", _deltas(_lexemes("removed r", "r.search_vector", "-"))),
        ("update", _deltas(_lexemes(_CHANGED, "a.search_vector", "", _CHANGED_ONLY),
                           _lexemes(_CHANGED, "o.search_vector", "-", _CHANGED_ONLY))),
    )
)

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
        deltas = _deltas(_lexemes("product p", "p.search_vector", where="WHERE p.id = ANY(:ids)"))
        connection.execute(text(f"SELECT {_apply(deltas)}"), {"ids": ids})


def pg_rebuild(connection: Connection) -> None:
    """Count every product's words again (after the vectors themselves were rebuilt)."""
    connection.exec_driver_sql("SELECT pg_advisory_xact_lock(%s)" % _LOCK_KEY)
    connection.exec_driver_sql("DELETE FROM search_word")
    connection.exec_driver_sql(
        "INSERT INTO search_word (word, docs, in_name, in_named) "
        f"SELECT d.lexeme, d.n, d.a, d.ab FROM ({_deltas(_lexemes('product p', 'p.search_vector'))}) d"
    )


def pg_has_table(connection: Connection) -> bool:
    return connection.exec_driver_sql("SELECT to_regclass('search_word') IS NOT NULL").scalar()


def pg_uninstall(connection: Connection) -> None:
    connection.exec_driver_sql(
        "DROP TRIGGER IF EXISTS product_words_insert ON product; DROP TRIGGER IF EXISTS product_words_delete ON product; "
        "DROP TRIGGER IF EXISTS product_words_update ON product; "
        "DROP FUNCTION IF EXISTS dd_search_words_insert(); DROP FUNCTION IF EXISTS dd_search_words_delete(); "
        "DROP FUNCTION IF EXISTS dd_search_words_update(); "
        "DROP FUNCTION IF EXISTS dd_search_words_apply(text[], integer[], integer[], integer[]); "
        "DROP TABLE IF EXISTS search_word"
    )


def sqlite_uninstall(connection: Connection) -> None:
    for kind, name, _sql in reversed(SQLITE_OBJECTS):
        connection.exec_driver_sql(f"DROP {kind.upper()} IF EXISTS {name}")


def uninstall(connection: Connection) -> None:
    (sqlite_uninstall if connection.dialect.name == "sqlite" else pg_uninstall)(connection)
