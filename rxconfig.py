"""Reflex configuration. Runtime settings live in discount_deals/settings.py.

The UI uses plain HTML elements styled with Tailwind (no Radix Themes): it keeps the
JavaScript and CSS a cheap phone downloads small. Built assets are precompressed.
"""

import os

import reflex as rx

from discount_deals.settings import parse_origins

# Other origins whose pages may call the app (DD_CORS_ORIGINS; none by default: same origin
# only). Reflex's CORS middleware and websocket read this; discount_deals/api/security.py
# enforces the same list (and refuses websocket upgrades from anywhere else).
_DEV_FRONTEND = ("http://localhost:3000", "http://127.0.0.1:3000")
CORS_ORIGINS = parse_origins(os.environ.get("DD_CORS_ORIGINS", "")) + (
    _DEV_FRONTEND if os.environ.get("REFLEX_ENV_MODE", "").lower() == "dev" else ()
)

config = rx.Config(
    app_name="discount_deals",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[rx.plugins.TailwindV4Plugin()],
    disable_plugins=[rx.plugins.SitemapPlugin],
    frontend_compression_formats=["brotli", "gzip"],
    cors_allowed_origins=CORS_ORIGINS,
)
