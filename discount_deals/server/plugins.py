"""Build plugin: pre-render one page shell for the dynamic product route.

Reflex pre-renders every static route at build time (React Router's ``prerender``), but not
dynamic ones such as ``/products/[product_id]``: those get an empty SPA shell. This plugin adds
one concrete path of that route, :data:`PRODUCT_SHELL_PATH`, to React Router's pre-render list,
so the build writes the product page's full markup (header, footer, the page's empty state) with
the right route modules. The server (``discount_deals.web.first_html``) serves that shell for every
product with the product's head tags and markup filled in, and the app hydrates over it.

Kept free of app imports (rxconfig.py imports it before the app exists): the shape of React
Router's config file is Reflex's business, so :func:`add_prerender_paths` lives in the adapter.
"""

from __future__ import annotations

from reflex.plugins import Plugin

from .. import routes
from .reflex_adapter import REACT_ROUTER_CONFIG_FILE, add_prerender_paths

PRODUCT_SHELL_PATH = routes.product_path("__shell__")


class PrerenderProductShell(Plugin):
    """Adds :data:`PRODUCT_SHELL_PATH` to the paths React Router pre-renders."""

    def pre_compile(self, **context) -> None:
        context["add_modify_task"](
            REACT_ROUTER_CONFIG_FILE, lambda text: add_prerender_paths(text, [PRODUCT_SHELL_PATH])
        )
