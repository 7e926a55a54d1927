"""Favourites of the logged-in user."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["favourites"])
