"""The one JSON parser for request bodies: bounded in nesting as well as in size.

Python's parser recurses once per nesting level, so a small body of ``[[[[…`` raises
RecursionError deep inside it; :func:`parse` answers :class:`TooDeep` instead, for anything
nested more than :data:`MAX_DEPTH` levels (the shop's bodies need 4). Sizes are the caller's
(each endpoint has its own limit, enforced while the body is read).
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32
TOO_DEEP = f"Invalid JSON body: nested more than {MAX_DEPTH} levels deep."
INVALID = "Invalid JSON body."


class InvalidJSON(ValueError):
    """The body is not JSON (``str(error)`` is the message for the client)."""


class TooDeep(InvalidJSON):
    """The body nests arrays or objects more than :data:`MAX_DEPTH` levels deep."""


def _depth_exceeds(value: Any, limit: int) -> bool:
    """True when ``value`` nests containers more than ``limit`` levels deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def parse(raw: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``raw`` parsed as JSON, or :class:`InvalidJSON` / :class:`TooDeep` with the client's message."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        raise InvalidJSON(INVALID) from None
    if _depth_exceeds(value, max_depth):
        raise TooDeep(TOO_DEEP)
    return value
