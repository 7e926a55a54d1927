"""Orders: checkout, explicit orders, list, detail, admin status changes."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["orders"])
