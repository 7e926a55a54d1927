"""Free text a person typed (a review, a return's reason, an admin's note), made fit to store and
show: control and format characters dropped (a NUL among them, which PostgreSQL refuses in any
text it is sent), surrounding space stripped. It stays text: no face reads it as HTML."""

from __future__ import annotations

import unicodedata
from typing import Any

# Control, format (zero-width and direction marks) and lone surrogate characters.
_INVISIBLE = ("Cc", "Cf", "Cs")
# Letters that draw nothing (Unicode's Default_Ignorable fillers: Hangul's and the braille blank):
# a reason of "\u3164" alone read as blank yet went through.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(text: str, keep: str) -> str:
    return "".join(ch for ch in text
                   if ch in keep or (unicodedata.category(ch) not in _INVISIBLE and ch not in _BLANK_LETTERS))


def clean_text(raw: Any) -> str:
    """Text of several lines: line ends made ``\\n`` (a review may have paragraphs), every other
    invisible character removed, surrounding space stripped."""
    text = str(raw).replace("\r\n", "\n").replace("\r", "\n")
    return _visible(text, "\n").strip()


def one_line(raw: Any) -> str:
    """Text on one line: each run of white space one space, invisible characters removed; "" for
    what is not text."""
    if not isinstance(raw, str):
        return ""
    return " ".join(_visible(raw, " \t\n\r\v\f").split())
