"""Reflex configuration. Runtime settings live in discount_deals/settings.py.

The UI uses plain HTML elements styled with Tailwind (no Radix Themes): it keeps the
JavaScript and CSS a cheap phone downloads small. Built assets are precompressed.
"""

import reflex as rx

from discount_deals.plugins import PrerenderProductShell

config = rx.Config(
    app_name="discount_deals",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[rx.plugins.TailwindV4Plugin(), PrerenderProductShell()],
    disable_plugins=[rx.plugins.SitemapPlugin],
    frontend_compression_formats=["brotli", "gzip"],
)
