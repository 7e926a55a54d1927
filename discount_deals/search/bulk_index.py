"""Bulk loads: many product inserts in one transaction, with the search index and the catalogue
version kept a chunk at a time instead of row by row (see :mod:`discount_deals.search.index`)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from . import words as search_words


class BulkLoad:
    """Many product inserts in one transaction, indexed a chunk at a time instead of row by row.

    Usage, inside the write transaction (SQLite; on PostgreSQL the per-row tsvector trigger is
    cheap and the version trigger already fires once per statement, so only the vocabulary's
    triggers are suspended, see :func:`search_words.pg_bulk_load`)::

        load = BulkLoad(connection)     # suspends the per-row search and version triggers
        try:
            mark = load.mark()          # before each chunk
            ... INSERT the chunk ...
            load.index_since(mark, ids) # adds the chunk (its products' ids) to the search index
            load.finish()               # resumes the triggers and changes the version once
        finally:
            load.close()                # gives the connection back its normal page cache

    Everything is in the caller's transaction: a rollback undoes the flag with the rows. The
    connection's page cache is raised meanwhile: the indexes of a large catalogue no longer fit
    SQLite's default 2 MB, and inserts at random places in them would keep re-reading pages.
    """

    BULK_CACHE_KIB = 64 * 1024

    def __init__(self, connection: Connection):
        self.connection = connection
        self.active = connection.dialect.name == "sqlite"
        self.postgres = connection.dialect.name == "postgresql"
        self._cache_size = None
        if self.postgres:
            search_words.pg_bulk_load(connection, True)
        if self.active:
            self._cache_size = connection.exec_driver_sql("PRAGMA cache_size").scalar()
            connection.exec_driver_sql(f"PRAGMA cache_size = -{self.BULK_CACHE_KIB}")
            connection.exec_driver_sql("UPDATE catalog_version SET bulk = 1 WHERE id = 1")

    def close(self) -> None:
        if self.postgres:
            self.postgres = False
            try:
                search_words.pg_bulk_load(self.connection, False)
            except DBAPIError:  # the load failed and its transaction is aborted: it will roll back anyway
                pass
        if self._cache_size is not None:
            self.connection.exec_driver_sql(f"PRAGMA cache_size = {int(self._cache_size)}")
            self._cache_size = None

    def mark(self) -> int:
        if not self.active:
            return 0
        return self.connection.exec_driver_sql("SELECT coalesce(max(rowid), 0) FROM product").scalar()

    def index_since(self, mark: int, ids: list[str] | None = None) -> None:
        if self.postgres:
            search_words.pg_add_products(self.connection, ids or [])
        if self.active:
            self.connection.execute(
                text(
                    "INSERT INTO product_fts (rowid, name, brand, category, description) "
                    "SELECT p.rowid, p.name, p.brand, c.name, p.description FROM product p "
                    "JOIN category c ON c.id = p.category_id WHERE p.rowid > :mark"
                ),
                {"mark": mark},
            )

    # PostgreSQL: a load this large refreshes the product table's planner statistics at once.
    ANALYZE_AFTER_ROWS = 1000

    def finish(self, rows: int = 0) -> None:
        """Resume the triggers (SQLite). On PostgreSQL, after ``rows`` ≥ ANALYZE_AFTER_ROWS, the
        table is analysed in the same transaction (ANALYZE counts the transaction's own rows):
        until autovacuum gets to it, up to a minute later, the listings of a freshly imported
        catalogue were planned from the statistics of the empty one. SQLite's plans are fixed
        by the queries themselves (services/catalog/listing.py), so it is not analysed."""
        if self.active:
            self.connection.exec_driver_sql("UPDATE catalog_version SET bulk = 0, version = random() WHERE id = 1")
        elif self.connection.dialect.name == "postgresql" and rows >= self.ANALYZE_AFTER_ROWS:
            self.connection.exec_driver_sql("ANALYZE product")
