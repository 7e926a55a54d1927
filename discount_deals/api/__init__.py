"""The REST API under ``/api``: one FastAPI app with a router per resource.

:func:`create_api` builds it (paths without the ``/api`` prefix, OpenAPI docs at ``/docs``);
the web shell (``discount_deals.web``, composed in ``discount_deals.py``) mounts it at ``/api``.
"""

from __future__ import annotations

import logging

import swagger_ui_bundle
from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.staticfiles import StaticFiles

from ..config.settings import get_settings
from . import (
    admin_audit,
    admin_orders,
    admin_returns,
    auth,
    cart,
    categories,
    checkout,
    coupons,
    errors,
    exports,
    favourites,
    health,
    metrics,
    notifications,
    password_reset,
    pickup_stores,
    openapi,
    order_payment,
    orders,
    payments,
    privacy,
    product_search,
    products,
    receipts,
    reviews,
    returns,
    users,
)
from .admission import write_admission
from .bodies import refuse_nul_parameters
from .routing import HeadAsGet

log = logging.getLogger("discount_deals.api")

ROUTERS = [
    health.router,
    metrics.router,
    auth.router,
    notifications.router,
    password_reset.router,
    users.router,
    categories.router,
    product_search.router,
    products.router,
    reviews.router,
    cart.router,
    orders.router,
    order_payment.router,
    receipts.router,
    returns.router,
    favourites.router,
    checkout.router,
    pickup_stores.router,
    payments.router,
    privacy.router,
    admin_orders.router,
    admin_returns.router,
    admin_audit.router,
    coupons.router,
    exports.router,
]


def create_api() -> FastAPI:
    """The API app itself (paths without the ``/api`` prefix)."""
    api = FastAPI(
        title="Discount Deals API",
        version="1.0.0",
        docs_url=None,  # served below from local files: the docs work offline
        redoc_url=None,
        openapi_url="/openapi.json",
        redirect_slashes=False,
        # Writing requests take their turn on SQLite before they take a thread (see admission.py).
        # A NUL in a query or path parameter is refused before any handler sees it (bodies.py).
        dependencies=[Depends(refuse_nul_parameters, scope="function"), Depends(write_admission, scope="function")],
    )
    errors.install(api)
    api.add_middleware(HeadAsGet)
    for router in ROUTERS:
        api.include_router(router)
    openapi.install(api)
    _serve_docs(api)
    settings = get_settings()
    settings.media_dir.mkdir(parents=True, exist_ok=True)
    api.mount("/media", StaticFiles(directory=settings.media_dir, check_dir=False), name="media")
    return api


def _serve_docs(api: FastAPI) -> None:
    """Swagger UI at /api/docs with its scripts from the swagger-ui-bundle package, not a CDN."""
    api.mount("/docs-assets", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @api.get("/docs", include_in_schema=False)
    def docs(request: Request):
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json",
            title="Discount Deals API",
            swagger_js_url=f"{root}/docs-assets/swagger-ui-bundle.js",
            swagger_css_url=f"{root}/docs-assets/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )
