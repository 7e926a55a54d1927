"""Users: register, me, user and profile updates, addresses, admin user management."""

from __future__ import annotations

from .routing import ApiRouter

router = ApiRouter(tags=["users"])
