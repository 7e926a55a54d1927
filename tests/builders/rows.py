"""Reading rows back: what a test checks after the request (the side effect, not only the status)."""

from __future__ import annotations

from sqlmodel import func, select

from discount_deals.db import session_scope


def count_rows(model) -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(model)).one()
