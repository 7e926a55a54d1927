"""The settings of the storefront UI's server side (issue 23), read from the environment.

Part of :mod:`discount_deals.config.settings` (``Settings.ui``), in a module of its own so that
settings.py stays readable and so that rxconfig.py can read the state lifetime without building
the whole settings object. Nothing else reads these variables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# A tab's state lives this long after its last event (then a returning tab rehydrates).
DEFAULT_STATE_TTL_S = 300
MIN_STATE_TTL_S = 30
MAX_STATE_TTL_S = 24 * 3600
# The in-memory manager looks for expired tab states at most this often (one pass over all).
STATE_SWEEP_S = 15
# A tab whose websocket closed keeps its state this long, for a reload or a dropped connection
# coming back (the same tab keeps its token); then it goes, whatever DD_STATE_TTL_SECONDS says.
DEFAULT_CLOSED_TAB_S = 60


@dataclass(frozen=True)
class UiSettings:
    """``state_ttl_seconds`` (DD_STATE_TTL_SECONDS): how long a tab's server-side state outlives
    its last event, and ``closed_tab_seconds`` (DD_CLOSED_TAB_SECONDS) how long after its
websocket closed; ``listing_cache_seconds`` (DD_LISTING_CACHE_SECONDS): how long a rendered
    listing page is reused while the catalogue does not change (a card's "n in stock" may be this old);
    ``metrics_token`` (DD_METRICS_TOKEN): the bearer token /api/metrics accepts from other
    addresses than loopback ("" = loopback only)."""

    state_ttl_seconds: int = DEFAULT_STATE_TTL_S
    closed_tab_seconds: int = DEFAULT_CLOSED_TAB_S
    listing_cache_seconds: float = 30.0
    metrics_token: str = field(default="", repr=False)


def _number(name: str, default: float, low: float, high: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g}, got {raw}")
    return value


def ui_settings() -> UiSettings:
    """Read the UI's settings afresh (cheap; rxconfig.py calls it at import, get_settings once)."""
    return UiSettings(
        state_ttl_seconds=int(_number("DD_STATE_TTL_SECONDS", DEFAULT_STATE_TTL_S, MIN_STATE_TTL_S, MAX_STATE_TTL_S)),
        closed_tab_seconds=int(_number("DD_CLOSED_TAB_SECONDS", DEFAULT_CLOSED_TAB_S, 0, MAX_STATE_TTL_S)),
        listing_cache_seconds=_number("DD_LISTING_CACHE_SECONDS", 30.0, 0, 3600),
        metrics_token=os.environ.get("DD_METRICS_TOKEN", "").strip(),
    )
