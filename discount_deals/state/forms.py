"""Reading what the browser sent: a submitted form's values and an event's arguments. Any client
may send any event with any arguments (Reflex passes on a value that does not match the handler's
type hint as it came), so a form that is not an object reads as empty, a field or an id that is
not text as "", a number that is not one as the default, and a checkbox is on only for the values
a browser sends for "checked"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def text_arg(value: Any) -> str:
    """An id or a choice as the browser sent it: the text, or "" for anything else."""
    return value if isinstance(value, str) else ""


def int_arg(value: Any, default: int = 0) -> int:
    """A whole number as the browser sent it (a number, or its text); ``default`` for anything
    else: None, a list, "abc", Infinity (JSON from the socket may hold it) or "²"."""
    if isinstance(value, bool) or (isinstance(value, str) and not value.isascii()):  # int("٣") is 3
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def form_text(form: dict[str, Any], name: str, *, strip: bool = False, limit: int | None = None) -> str:
    """The text of field ``name`` ("" when it is missing or not text, or the form is not an
    object), stripped and cut to ``limit`` characters when asked."""
    value = form.get(name) if isinstance(form, Mapping) else None
    if not isinstance(value, str):
        return ""
    value = value.strip() if strip else value
    return value[:limit] if limit is not None else value


def form_fields(form: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The text of several fields at once, unstripped (the services clean them)."""
    return {name: form_text(form, name) for name in names}


def form_checked(form: dict[str, Any], name: str) -> bool:
    value = form.get(name) if isinstance(form, Mapping) else None
    return value is True or (isinstance(value, str) and value.lower() in {"on", "true"})


def show_form_values(state: Any, values: dict[str, Any], version: str = "form_version", *, saved: bool = False) -> None:
    """Put the server's ``values`` into a form whose fields the browser owns (``default_value`` and
    a ``key`` of ``version``), remounting it only when what it shows changes.

    A page load's answer can arrive after the shopper has already ticked or typed something (a
    reload shows the stored values at once, from the restored state); remounting then would put
    back what was stored and silently drop the tap, so a load that finds the same values leaves
    the form alone. ``saved``: the answer to the form's own save, which always remounts it, so
    the fields show what was stored (the server may have tidied what was typed)."""
    changed = saved or any(getattr(state, name) != value for name, value in values.items())
    for name, value in values.items():
        setattr(state, name, value)
    if changed:
        setattr(state, version, getattr(state, version) + 1)
