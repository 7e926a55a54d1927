"""Auth: tokens, refresh, verify, logout (SPEC §7 Auth and users)."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["auth"])
