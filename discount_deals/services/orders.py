"""Checkout and orders: totals from pricing, stock decremented with guarded updates, coupons."""

from __future__ import annotations
