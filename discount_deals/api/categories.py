"""Categories: list, create, bulk upload."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["categories"])
