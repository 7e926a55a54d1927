"""Build plugin: pre-render one page shell for the dynamic product route.

Reflex pre-renders every static route at build time (React Router's ``prerender``), but not
dynamic ones such as ``/products/[product_id]``: those get an empty SPA shell. This plugin adds
one concrete path of that route, :data:`PRODUCT_SHELL_PATH`, to React Router's pre-render list,
so the build writes the product page's full markup (header, footer, the page's empty state) with
the right route modules. The server (``discount_deals.web.first_html``) serves that shell for every
product with the product's head tags and markup filled in, and the app hydrates over it.

Kept free of app imports: rxconfig.py imports it before the app exists.
"""

from __future__ import annotations

import json
import re

from reflex.plugins import Plugin

PRODUCT_SHELL_PATH = "/products/__shell__"
CONFIG_FILE = "react-router.config.js"
_CONFIG = re.compile(r"^export default (\{.*\});\s*$", re.S)


def add_prerender_paths(config_js: str, paths: list[str]) -> str:
    """Turn ``"prerender": true`` into a function listing the static paths plus ``paths``.

    Left unchanged when the build does not pre-render (development) or the file has an unknown
    shape (a newer Reflex): the app then still works, only without the product shell."""
    match = _CONFIG.match(config_js)
    if not match:
        return config_js
    config = json.loads(match.group(1))
    if config.get("prerender") is not True:
        return config_js
    config.pop("prerender")
    body = json.dumps(config)[1:-1]
    extra = json.dumps(paths)
    return (
        "export default {" + body + ', "prerender": ({getStaticPaths}) => '
        f"[...getStaticPaths(), ...{extra}]}};"
    )


class PrerenderProductShell(Plugin):
    """Adds :data:`PRODUCT_SHELL_PATH` to the paths React Router pre-renders."""

    def pre_compile(self, **context) -> None:
        context["add_modify_task"](CONFIG_FILE, lambda text: add_prerender_paths(text, [PRODUCT_SHELL_PATH]))
