"""The SQL statements a piece of code sends, caught on the real engine with SQLAlchemy's
``before_cursor_execute`` event: for query-count checks (an N+1 shows as a count that grows with
the rows) and for reading which queries the catalogue runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import event

from discount_deals.db import get_engine

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


@dataclass
class Statements:
    """What the engine was asked while the block ran: ``(sql, parameters)`` in order."""

    sent: list[tuple[str, object]] = field(default_factory=list)

    def __len__(self) -> int:
        """The statements that do work: transaction control is left out, so a count is the same on
        SQLite (whose engine sends its own BEGIN) and PostgreSQL (whose driver begins implicitly)."""
        return sum(not s.lstrip().upper().startswith(TRANSACTION_CONTROL) for s, _parameters in self.sent)

    @property
    def sql(self) -> list[str]:
        return [statement for statement, _parameters in self.sent]

    def selects(self) -> list[tuple[str, object]]:
        return [(s, p) for s, p in self.sent if s.lstrip().upper().startswith("SELECT")]

    def report(self) -> str:
        """The statements one a line, for an assertion's message."""
        return "\n".join(f"{n}. {' '.join(s.split())[:300]}" for n, s in enumerate(self.sql, 1))


@contextmanager
def sql_statements() -> Iterator[Statements]:
    """Catch every statement the test database's engine executes inside the ``with`` block (the
    app, the API and the services share that engine); transaction control (BEGIN, COMMIT) is not
    a cursor statement, so is not counted."""
    engine = get_engine()
    caught = Statements()

    def catch(_conn, _cursor, statement, parameters, _context, _executemany) -> None:
        caught.sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", catch)
    try:
        yield caught
    finally:
        event.remove(engine, "before_cursor_execute", catch)


def forget_cached_reads() -> None:
    """Start from cold caches: the listing's counts, the discount-window check's throttle and the
    storefront's shared pages, so a count does not depend on what ran before."""
    from discount_deals.services.catalog import listing, price_schedule
    from discount_deals.state.shop import shared_views

    listing._counts.clear()
    price_schedule.reset_throttle()
    shared_views.forget_all()


def statements_of(call) -> Statements:
    """The statements ``call()`` sends from cold caches (see :func:`forget_cached_reads`)."""
    forget_cached_reads()
    with sql_statements() as caught:
        call()
    return caught
