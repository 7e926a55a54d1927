"""Products: list, featured, detail, admin writes, bulk upload."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["products"])
