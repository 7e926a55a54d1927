"""Rules every form and JSON body of the shop follows, worded once.

A body must be a JSON object; a flag must be true or false; several refused fields become one
:class:`ValidationFailed` whose detail names each field's first problem and whose ``fields``
map lists them all (the API's one error shape).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import ValidationFailed

NOT_AN_OBJECT = "Invalid request body: a JSON object is expected."
MUST_BE_BOOLEAN = "Must be true or false."

Errors = dict[str, list[str]]


def require_object(data: Any) -> Mapping[str, Any]:
    """``data`` when it is a JSON object (a mapping); 400 otherwise."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(NOT_AN_OBJECT)
    return data


def take_flag(data: Mapping[str, Any], name: str, clean: dict[str, Any], errors: Errors, *,
              none_is_absent: bool = False) -> None:
    """Copy ``data[name]``, when given, to ``clean`` if it is true or false; else record the error."""
    if name not in data or (none_is_absent and data[name] is None):
        return
    if isinstance(data[name], bool):
        clean[name] = data[name]
    else:
        errors[name] = [MUST_BE_BOOLEAN]


def whole_number(value: Any) -> int | None:
    """``value`` as a whole number of 0 or more: an int, or text of ASCII digits ("²".isdigit()
    is true too, and int() refuses it); None for anything else, a bool included."""
    text = str(value).strip() if isinstance(value, int | str) and not isinstance(value, bool) else ""
    return int(text) if text.isascii() and text.isdigit() else None


def as_sentences(messages: Iterable[str]) -> str:
    """Messages as one text: after a full stop a space, else "; " ("A user with this email
    already exists. A user with this username already exists.")."""
    text = ""
    for message in messages:
        text += ("" if not text else " " if text.endswith((".", "!", "?")) else "; ") + message
    return text


def field_summary(errors: Mapping[str, list[str]]) -> str:
    """``field: first message; ...`` for every refused field."""
    return "; ".join(f"{name}: {messages[0]}" for name, messages in errors.items())


def refused(errors: Errors, what: str = "input") -> ValidationFailed:
    """One refusal for a form's field errors: "Invalid {what}. field: message; ..."."""
    return ValidationFailed(f"Invalid {what}. {field_summary(errors)}", fields=errors)
