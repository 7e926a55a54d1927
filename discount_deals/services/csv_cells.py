"""CSV cells shared by the exports and the importer: formula-injection escaping and its inverse.

A spreadsheet runs a cell as a formula when its text starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return. Exports put an apostrophe in front of such text (OWASP's advice);
the importer takes it off again, so an exported file uploads back unchanged.
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from .moments import as_utc
from .money import api_amount

# Text an export escapes: formula-like (starting with = + - @, a tab or a carriage return), also
# after apostrophes typed in front ("'=Rice" as the name reads): it gets one more, so that the
# importer, which takes one off, gives it back as it was.
_ESCAPED_WHEN = re.compile(r"'*[=+\-@\t\r]")


def escape_cell(value: Any) -> str:
    """A value as CSV cell text (money with 2 decimals, times ISO 8601 UTC, lists comma-joined,
    booleans true/false), with formula-like text made inert by a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return api_amount(value)
    if isinstance(value, datetime):
        return as_utc(value).isoformat()
    if isinstance(value, list | tuple):
        value = ",".join(str(item) for item in value)
    text = str(value)
    return "'" + text if _ESCAPED_WHEN.match(text) else text


def unescape_cell(text: str) -> str:
    """The importer's inverse of :func:`escape_cell` for text cells."""
    return text[1:] if text.startswith("'") and _ESCAPED_WHEN.match(text, 1) else text
