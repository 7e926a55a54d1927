"""``GET /api/metrics``: the shop's figures in Prometheus' text format (discount_deals/server/metrics.py).

For the operator's scraper only: answered to a direct request from this machine (a loopback
address and no proxy's forwarding header: behind nginx every request comes from loopback) or to
``Authorization: Bearer $DD_METRICS_TOKEN``; anyone else gets 401.
"""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import Request
from fastapi.responses import Response

from ..server import metrics
from ..services import NotAuthenticated
from ..config.settings import get_settings
from .deps import bearer_token
from .routing import ApiRouter

router = ApiRouter(tags=["health"])
FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


class MetricsRefused(NotAuthenticated):
    headers = {"WWW-Authenticate": "Bearer"}


def _direct_from_this_machine(request: Request) -> bool:
    if any(name in request.headers for name in FORWARDING_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.client.host if request.client else "").is_loopback
    except ValueError:
        return False


def _has_token(request: Request) -> bool:
    expected = get_settings().ui.metrics_token
    given = bearer_token(request) or ""
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


@router.get("/metrics", include_in_schema=False)
def prometheus_metrics(request: Request) -> Response:
    if not (_direct_from_this_machine(request) or _has_token(request)):
        raise MetricsRefused("Metrics are for this machine or a bearer token (DD_METRICS_TOKEN).")
    body, content_type = metrics.render()
    return Response(content=body, media_type=content_type)
