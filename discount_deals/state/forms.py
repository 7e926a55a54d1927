"""Reading a submitted form's values: the browser may send anything, so a field that is not text
reads as empty and a checkbox is on only for the values a browser sends for "checked"."""

from __future__ import annotations

from typing import Any


def form_text(form: dict[str, Any], name: str, *, strip: bool = False, limit: int | None = None) -> str:
    """The text of field ``name`` ("" when it is missing or not text), stripped and cut to
    ``limit`` characters when asked."""
    value = form.get(name)
    if not isinstance(value, str):
        return ""
    value = value.strip() if strip else value
    return value[:limit] if limit is not None else value


def form_fields(form: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The text of several fields at once, unstripped (the services clean them)."""
    return {name: form_text(form, name) for name in names}


def form_checked(form: dict[str, Any], name: str) -> bool:
    value = form.get(name)
    return value is True or (isinstance(value, str) and value.lower() in {"on", "true"})
