"""Substring and prefix matches in SQL: ``LIKE`` with the searched text's wildcards escaped.

The back-office lists (users, coupons, orders) search by what an admin types; ``%`` and ``_``
in it are text, not wildcards. The same SQL serves SQLite and PostgreSQL. A NUL character
matches nothing (no stored text holds one, and PostgreSQL refuses it in a parameter).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import false

LIKE_ESCAPE = "\\"


def escape_like(text: str) -> str:
    """``text`` with LIKE's wildcards and the escape character escaped (``ESCAPE '\\'``)."""
    return re.sub(r"([\\%_])", r"\\\1", text)


def contains(column: Any, text: str) -> Any:
    """``column LIKE '%text%'``, the text taken literally."""
    if "\x00" in text:
        return false()
    return column.like(f"%{escape_like(text)}%", escape=LIKE_ESCAPE)


def starts_with(column: Any, text: str) -> Any:
    """``column LIKE 'text%'``, the text taken literally."""
    if "\x00" in text:
        return false()
    return column.like(f"{escape_like(text)}%", escape=LIKE_ESCAPE)
