"""Reflex configuration. Runtime settings live in discount_deals/config/settings.py.

The UI uses plain HTML elements styled with Tailwind (no Radix Themes): it keeps the
JavaScript and CSS a cheap phone downloads small. Built assets are precompressed.

``DD_PUBLIC_URL`` (the shop's public address, e.g. https://shop.example.com) is also where the
browser opens its websocket: a production build made with it connects through the proxy that
serves that address. ``python -m discount_deals serve`` rebuilds when it changes.

``reflex`` run from the venv without activating it still finds the venv's Node (Reflex needs
Node ≥ 22; the system's may be older) and uses npm (bun cannot be downloaded here).
"""

import os
import sys
from pathlib import Path

import reflex as rx

_venv_bin = str(Path(sys.executable).parent)
if (Path(_venv_bin) / "node").exists() and os.environ.get("PATH", "").split(os.pathsep)[0] != _venv_bin:
    os.environ["PATH"] = _venv_bin + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("REFLEX_USE_NPM", "1")
os.environ.setdefault("REFLEX_CHECK_LATEST_VERSION", "false")  # no probe of PyPI at every start

from discount_deals.server.plugins import PrerenderProductShell  # noqa: E402
from discount_deals.server.reflex_adapter import declared_env_mode  # noqa: E402
from discount_deals.config.settings import parse_origins, server_settings  # noqa: E402
from discount_deals.config.settings_ui import DEFAULT_STATE_TTL_S, ui_settings  # noqa: E402

# Read cheaply (server_settings, not get_settings: that would create the secret file when a
# build step merely imports this config).
_server = server_settings()
_public_url = _server.public_url

# Other origins whose pages may call the app (DD_CORS_ORIGINS; none by default: same origin
# only). Reflex's CORS middleware reads this; discount_deals/web/security.py enforces the same
# list (and refuses websocket upgrades from anywhere else).
_DEV_FRONTEND = ("http://localhost:3000", "http://127.0.0.1:3000")
CORS_ORIGINS = parse_origins(_server.cors_origins) + (_DEV_FRONTEND if declared_env_mode() == "dev" else ())

# Tab states (discount_deals/server/tab_states.py): in the worker's memory without Redis (Reflex's own
# default writes files per tab and scans them all), in Redis with it; either way they expire
# DD_STATE_TTL_SECONDS after the tab's last event. A bad value is preflight's to report.
try:
    _state_ttl = ui_settings().state_ttl_seconds
except ValueError:
    _state_ttl = DEFAULT_STATE_TTL_S
_state_manager = {} if _server.redis_url else {"state_manager_mode": rx.constants.StateManagerMode.MEMORY}

config = rx.Config(
    app_name="discount_deals",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[rx.plugins.TailwindV4Plugin(), PrerenderProductShell()],
    disable_plugins=[rx.plugins.SitemapPlugin],
    frontend_compression_formats=["brotli", "gzip"],
    # The service worker's library (discount_deals/web/service_worker.py copies it into the build).
    frontend_packages=[f"workbox-{name}@7.4.1" for name in (
        "sw", "core", "precaching", "routing", "strategies", "expiration", "cacheable-response")],
    **({"api_url": _public_url, "deploy_url": _public_url} if _public_url else {}),
    cors_allowed_origins=CORS_ORIGINS,
    redis_token_expiration=_state_ttl,
    **_state_manager,
)
