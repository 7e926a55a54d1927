"""The websocket's JSON, written by orjson (issue 23: events per second).

Every UI event ends in Socket.IO packets that carry the state's changes (a listing page is 6-8 KB
of cards), and Reflex encodes them with the standard library's encoder, calling its serializer
back for every dataclass on the page. Profiled at 40 shoppers without think time, that encoding
was ~16 % of the worker's event-loop time. orjson (maintained, C, ~10× faster on the recorded
frames) writes the same JSON: the types where the two would differ (dataclasses, dates and times)
still go through Reflex's own serializer (``default``), and anything orjson refuses (an integer
beyond 64 bits, a lone surrogate, a key it cannot write) is encoded by Reflex's encoder as before,
so an error reads as it did. The only output that changes is not JSON at all: NaN and infinities,
which the browser's parser rejects, become ``null``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ..server.reflex_adapter import websocket_json, use_websocket_json

# Dataclasses and dates go to Reflex's serializer, as with the standard encoder; keys that are
# numbers, booleans or None become strings, as json.dumps writes them.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


class FrameJson:
    """``dumps``/``loads`` as python-socketio calls them (``separators`` aside): writing by orjson,
    falling back to the codec Reflex installed for anything orjson will not take; reading by that
    codec."""

    def __init__(self, fallback: Any, serialize: Callable[[Any], Any]):
        self._fallback = fallback
        self._serialize = serialize

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        try:
            return orjson.dumps(obj, default=self._serialize, option=_OPTIONS).decode()
        except orjson.JSONEncodeError:
            return self._fallback.dumps(obj, **kwargs)

    def loads(self, data: str | bytes, **kwargs: Any) -> Any:
        # Reading stays the standard library's: the browser's frames are small, and orjson reads an
        # integer beyond 64 bits as a float where json.loads keeps it exact.
        return self._fallback.loads(data, **kwargs)


def encode_frames_with_orjson(app) -> None:
    """Install :class:`FrameJson` for ``app``'s websocket. Idempotent; no socket, nothing to do."""
    current = websocket_json(app)
    if current is None or isinstance(current, FrameJson):
        return
    from reflex_base.utils.serializers import serialize

    use_websocket_json(app, FrameJson(current, serialize))
