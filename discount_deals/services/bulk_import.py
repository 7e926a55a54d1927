"""Bulk imports of products and categories (JSON rows or CSV via pandas): validate in bulk, insert in batches, one transaction."""

from __future__ import annotations
