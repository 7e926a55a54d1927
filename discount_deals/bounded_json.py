"""The one JSON parser for request bodies: bounded in nesting, in numbers and in text.

Python's parser recurses once per nesting level, so a small body of ``[[[[…`` raises
RecursionError deep inside it; :func:`parse` answers :class:`TooDeep` instead, for anything
nested more than :data:`MAX_DEPTH` levels (the shop's bodies need 4). Sizes are the caller's
(each endpoint has its own limit, enforced while the body is read).

It also refuses, naming the field, what Python's parser lets through but nothing downstream can
store or compute with (:class:`BadValue`):

- a lone surrogate (``"\\ud800"``, in a key or a value): it is not a character, and encoding it
  (password hashing, the database driver, the JSON answer) raises UnicodeEncodeError;
- a number that is not finite: ``NaN``/``Infinity`` (a JavaScript habit Python accepts) and
  floats that overflow to infinity (``1e400``).
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32
TOO_DEEP = f"Invalid JSON body: nested more than {MAX_DEPTH} levels deep."
INVALID = "Invalid JSON body."
LONE_SURROGATE = "Must be valid Unicode text: a lone surrogate (\\ud800-\\udfff) is not a character."
NOT_FINITE = "Must be a finite number within range."
WHOLE_BODY = "non_field_errors"  # the field name of a refusal that is not inside an object or array


class InvalidJSON(ValueError):
    """The body is not JSON (``str(error)`` is the message for the client)."""

    #: The offending field (``items.0.name``; see :func:`field_name`), and its message.
    field: str | None = None
    field_message: str = ""


class TooDeep(InvalidJSON):
    """The body nests arrays or objects more than :data:`MAX_DEPTH` levels deep."""


class BadValue(InvalidJSON):
    """Well-formed JSON with a value no field may hold: a lone surrogate or a non-finite number."""

    def __init__(self, field: str, message: str):
        super().__init__(f"Invalid JSON body. {field}: {message}")
        self.field = field
        self.field_message = message


class _NotFinite:
    """Stands in for a number that is not finite until the walk names its field."""

    __slots__ = ()


_NOT_FINITE = _NotFinite()


def _float(text: str) -> float | _NotFinite:
    value = float(text)
    return value if math.isfinite(value) else _NOT_FINITE


def _constant(_name: str) -> _NotFinite:  # NaN, Infinity, -Infinity
    return _NOT_FINITE


def _is_text(value: str) -> bool:
    """False for a string holding a lone surrogate (isascii() keeps the common case cheap)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(key: Any) -> str:
    # The name goes back to the client in JSON: a lone surrogate in it is shown escaped.
    return str(key).encode("utf-8", "backslashreplace").decode("utf-8")


def field_name(path: tuple[Any, ...]) -> str:
    """The API's name for a field at ``path``: keys and list indexes joined with dots, as the
    error handler names pydantic's fields (``items.0.name``)."""
    return ".".join(_printable(part) for part in path) or WHOLE_BODY


def _path(link: tuple | None) -> tuple[Any, ...]:
    parts: list[Any] = []
    while link is not None:
        key, link = link
        parts.append(key)
    return tuple(reversed(parts))


def _refusal(value: Any) -> str | None:
    """Why a scalar value may not be stored (None: it may)."""
    if value is _NOT_FINITE:
        return NOT_FINITE
    if isinstance(value, str) and not _is_text(value):
        return LONE_SURROGATE
    return None


def _check(value: Any, limit: int) -> None:
    """Raise :class:`TooDeep` or :class:`BadValue` for ``value`` (no recursion; within each
    object or array the first bad key or value is the one named).

    Paths are linked lists ``(key, parent_link)``, made once per container and turned into a
    name only when something is refused: the walk costs little more than the parse itself."""
    problem = _refusal(value)
    if problem:
        raise BadValue(WHOLE_BODY, problem)
    stack: list[tuple[Any, int, tuple | None]] = [(value, 0, None)] if isinstance(value, dict | list) else []
    while stack:
        item, depth, link = stack.pop()
        if depth >= limit:
            raise TooDeep(TOO_DEEP)
        nested = []
        for key, child in item.items() if isinstance(item, dict) else enumerate(item):
            if isinstance(key, str) and not _is_text(key):
                raise BadValue(field_name(_path((key, link))), LONE_SURROGATE)
            if isinstance(child, dict | list):
                nested.append((child, depth + 1, (key, link)))
            elif (problem := _refusal(child)) is not None:
                raise BadValue(field_name(_path((key, link))), problem)
        stack.extend(reversed(nested))


def parse(raw: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``raw`` parsed as JSON, or :class:`InvalidJSON` / :class:`TooDeep` / :class:`BadValue`
    with the client's message."""
    try:
        value = json.loads(raw, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, integers over 4300 digits
        raise InvalidJSON(INVALID) from None
    _check(value, max_depth)
    return value
