"""The logged-in user's cart: lines, quantities against stock, clearing."""

from __future__ import annotations
