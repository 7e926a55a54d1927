"""The settings of the storefront UI's server side (issue 23): tab states, the listing cache, /api/metrics.

Part of :mod:`discount_deals.config.settings` (``Settings.ui``), in a module of its own so that
rxconfig.py can read the state lifetime without building the whole settings object.
"""

from __future__ import annotations

from pydantic import Field

from .settings_base import EnvironmentSettings, read

# A tab's state lives this long after its last event (then a returning tab rehydrates).
DEFAULT_STATE_TTL_S = 300
MIN_STATE_TTL_S = 30
MAX_STATE_TTL_S = 24 * 3600
# The in-memory manager looks for expired tab states at most this often (one pass over all).
STATE_SWEEP_S = 15
# A tab whose websocket closed keeps its state this long, for a reload or a dropped connection
# coming back (the same tab keeps its token); then it goes, whatever DD_STATE_TTL_SECONDS says.
DEFAULT_CLOSED_TAB_S = 60
_A_NUMBER = {"problem": "{name} must be a number between {ge} and {le}, got {raw}"}


class UiSettings(EnvironmentSettings):
    """How long tab states and rendered listing pages live, and who may read /api/metrics."""

    state_ttl_seconds: int = Field(
        DEFAULT_STATE_TTL_S, ge=MIN_STATE_TTL_S, le=MAX_STATE_TTL_S, validation_alias="DD_STATE_TTL_SECONDS",
        json_schema_extra=_A_NUMBER, description=(
            "how long a browser tab's server-side state outlives its last event, in memory or in Redis; "
            "a tab that comes back later is rebuilt and reloads its page's data"))
    closed_tab_seconds: int = Field(
        DEFAULT_CLOSED_TAB_S, ge=0, le=MAX_STATE_TTL_S, validation_alias="DD_CLOSED_TAB_SECONDS",
        json_schema_extra=_A_NUMBER, description=(
            "how long a tab's state outlives its websocket's closing (a reload or a dropped connection "
            "coming back within it keeps the state)"))
    listing_cache_seconds: float = Field(
        30.0, ge=0, le=3600, validation_alias="DD_LISTING_CACHE_SECONDS", json_schema_extra=_A_NUMBER,
        description=(
            "how long a rendered storefront page (listing, home, product) is shared between tabs while the "
            "catalogue does not change; a card's \"n in stock\" may be this old (selling out and coming back "
            "change the catalogue version, so they show at once; adding to the cart always checks)"))
    metrics_token: str = Field("", validation_alias="DD_METRICS_TOKEN", repr=False, description=(
        "bearer token that lets other addresses than this machine read `/api/metrics` (unset: this machine only)"))


def ui_settings() -> UiSettings:
    """Read the UI's settings afresh (cheap; rxconfig.py calls it at import, get_settings once)."""
    return read(UiSettings)
