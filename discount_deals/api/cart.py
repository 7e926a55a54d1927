"""Cart of the logged-in user: items and clear."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["cart"])
