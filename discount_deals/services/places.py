"""Place names as people write them on a letter (a leaf module: messages and users both read it)."""

from __future__ import annotations

import re


def place_name(text: str) -> str:
    """A town as people write it on a letter: "accra" → "Accra", "sekondi-takoradi" →
    "Sekondi-Takoradi"; a name typed with capitals already is kept as typed ("East Legon")."""
    text = " ".join(str(text or "").split())
    if any(letter.isupper() for letter in text):
        return text
    return re.sub(r"[^\W\d_]+", lambda word: word.group(0).capitalize(), text)
