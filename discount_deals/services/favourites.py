"""Favourite products of logged-in users."""

from __future__ import annotations
