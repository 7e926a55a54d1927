"""Templates: sample upload files (JSON or CSV) the uploader accepts as they are."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..csv_cells import escape_cell

PRODUCT_TEMPLATE_COLUMNS = (
    "name", "description", "brand", "price", "discount_price", "discount_start", "discount_end", "image_url",
    "category", "stock", "rating", "status", "is_available", "is_featured", "tags", "related_products",
)
CATEGORY_TEMPLATE_COLUMNS = ("name", "slug", "description", "parent")
# The export (services.exports) adds what the templates leave out, so that it re-imports unchanged.
PRODUCT_EXPORT_COLUMNS = (*PRODUCT_TEMPLATE_COLUMNS, "per_customer_limit")


def product_template_rows(category_names: list[str]) -> list[dict[str, Any]]:
    """Two sample products in existing categories (give at least one category name)."""
    first = category_names[0]
    second = category_names[1] if len(category_names) > 1 else first
    return [
        {
            "name": "Sample Jasmine Rice 5kg",
            "description": "Fragrant long-grain rice, ideal for jollof and fried rice.",
            "brand": "shoprite",
            "price": "24.99",
            "discount_price": "19.99",
            "image_url": "/placeholder.webp",
            "category": first,
            "stock": 40,
            "rating": 4.5,
            "status": "active",
            "is_available": True,
            "is_featured": False,
            "tags": ["rice", "staples"],
            "related_products": [],
        },
        {
            "name": "Sample Malt Drink 6 x 330ml",
            "description": "Non-alcoholic malt drink, six cans.",
            "brand": "melcom",
            "price": "9.50",
            "image_url": "/placeholder.webp",
            "category": second,
            "stock": 25,
            "rating": 4.0,
            "status": "active",
            "is_available": True,
            "is_featured": True,
            "tags": ["drinks"],
            "related_products": [],
        },
    ]


CATEGORY_TEMPLATE_ROWS: list[dict[str, str]] = [
    {"name": "Sample Stationery", "slug": "sample-stationery", "description": "Pens, notebooks and school supplies", "parent": ""},
    {"name": "Sample Garden", "slug": "sample-garden", "description": "Seeds, tools and outdoor furniture", "parent": ""},
]


def _csv_text(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([escape_cell(row.get(column)) for column in columns])
    return out.getvalue()


def products_template(category_names: list[str], fmt: str) -> str:
    """products-template.json or .csv (``fmt`` "json" or "csv")."""
    rows = product_template_rows(category_names)
    if fmt == "csv":
        return _csv_text(PRODUCT_TEMPLATE_COLUMNS, rows)
    return json.dumps(rows, indent=2) + "\n"


def categories_template(fmt: str) -> str:
    """categories-template.json or .csv (``fmt`` "json" or "csv"); parent is left blank."""
    if fmt == "csv":
        return _csv_text(CATEGORY_TEMPLATE_COLUMNS, CATEGORY_TEMPLATE_ROWS)
    return json.dumps(CATEGORY_TEMPLATE_ROWS, indent=2) + "\n"
