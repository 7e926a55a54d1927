"""Reflex configuration. Runtime settings live in discount_deals/settings.py."""

import reflex as rx

config = rx.Config(
    app_name="discount_deals",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[rx.plugins.RadixThemesPlugin()],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
