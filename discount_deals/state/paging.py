"""Page arithmetic shared by the admin tabs' states (one rule for "how many pages" and its label)."""

from __future__ import annotations

import math


def page_count(total: int, page_size: int) -> int:
    """Pages needed for ``total`` rows (0 when there are none)."""
    return math.ceil(total / page_size) if total else 0


def page_label(page: int, pages: int) -> str:
    """``Page 2 of 5``; an empty list reads ``Page 1 of 1``."""
    return f"Page {page} of {max(pages, 1)}"
