"""Page arithmetic shared by the paged screens: one rule for "how many pages", its label, which
page may be asked for, and which page buttons a pager shows."""

from __future__ import annotations

import math
from typing import Any

from .forms import int_arg


def page_count(total: int, page_size: int) -> int:
    """Pages needed for ``total`` rows (0 when there are none)."""
    return math.ceil(total / page_size) if total else 0


def page_label(page: int, pages: int) -> str:
    """``Page 2 of 5``; an empty list reads ``Page 1 of 1``."""
    return f"Page {page} of {max(pages, 1)}"


def clamp_page(page: Any, pages: int) -> int:
    """A requested page number kept between 1 and the last page."""
    return max(1, min(int_arg(page, 1), max(pages, 1)))


def page_window(page: int, total_pages: int) -> list[str]:
    """Page 1, the last page and two pages either side of the current, with "…" for gaps."""
    if total_pages <= 1:
        return []
    shown = sorted({1, total_pages, *range(max(1, page - 2), min(total_pages, page + 2) + 1)})
    items: list[str] = []
    for number in shown:
        if items and number - int(items[-1]) > 1:
            items.append("…")
        items.append(str(number))
    return items
