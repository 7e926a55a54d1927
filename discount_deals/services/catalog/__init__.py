"""Catalogue rules: products and categories (listing and search, validation, writes).

- :mod:`.query`: what a listing is asked for (:class:`ListingQuery`), built by each face
- :mod:`.listing`: pages of products with filters, orderings and cached counts
- :mod:`.filters`: the listing's filters and the per-worker caches keyed by catalogue version
- :mod:`.search`: the shopper's search text → full-text conditions (SQLite FTS5, PostgreSQL)
- :mod:`.typos`: typo correction against the search index's vocabulary
- :mod:`.facets`: how many products each filter choice leaves (facet counts)
- :mod:`.suggestions`: products and categories while the shopper types
- :mod:`.products`: one product (lookup, admin writes)
- :mod:`.form_merge`: the admin form's view of a product, and a save merged with changes made meanwhile
- :mod:`.categories`: categories
- :mod:`.fields`: the field rules (pydantic models) shared by single and bulk writes
- :mod:`.validation`: whole products and categories (the rules that need more than one field)
- :mod:`.price_schedule`: stored listing prices kept right as discount windows open and close
"""

from .categories import (
    category_conflicts,
    create_category,
    crossed_names,
    delete_category,
    find_category,
    list_categories,
    update_category,
)
from .facets import Facets, FacetValue, facet_counts, price_range_label
from .filters import DISCOUNT_STEPS, price_range_key
from .suggestions import CategoryChoice, Suggestions, suggest
from .query import ListingQuery
from .listing import (
    LOW_STOCK_THRESHOLD,
    ORDERINGS,
    PRICE_RANGES,
    STATUS_FILTERS,
    ProductPage,
    brand_counts,
    catalogue_version,
    featured_products,
    is_visible,
    list_brands,
    list_products,
    resolve_ordering,
    visible_clause,
)
from .form_merge import admin_rating_of, form_view
from .products import (
    create_product,
    delete_product,
    existing_product_ids,
    get_product,
    product_name_taken,
    products_by_ids,
    restock,
    update_product,
)
from .price_schedule import apply_due_prices, refresh_due_prices, refresh_if_due
from .search import MAX_QUERY_LENGTH
from .fields import MAX_PRICE, MAX_STOCK, parse_datetime, parse_money
from .validation import (
    KEPT_WHEN_ABSENT,
    PRODUCT_DEFAULTS,
    REQUIRED,
    category_key,
    clean_category,
    clean_product,
    comma_list,
    derived_columns,
    duplicate_name_message,
    missing_products_message,
    name_key,
    name_sort,
    price_columns,
    refresh_derived,
    slugify,
    validation_detail,
)

__all__ = [
    "admin_rating_of",
    "form_view",
    "CategoryChoice",
    "DISCOUNT_STEPS",
    "FacetValue",
    "Facets",
    "Suggestions",
    "facet_counts",
    "price_range_label",
    "suggest",
    "KEPT_WHEN_ABSENT",
    "LOW_STOCK_THRESHOLD",
    "ListingQuery",
    "STATUS_FILTERS",
    "MAX_PRICE",
    "MAX_QUERY_LENGTH",
    "MAX_STOCK",
    "ORDERINGS",
    "PRICE_RANGES",
    "price_range_key",
    "PRODUCT_DEFAULTS",
    "REQUIRED",
    "ProductPage",
    "brand_counts",
    "catalogue_version",
    "category_conflicts",
    "crossed_names",
    "clean_category",
    "clean_product",
    "comma_list",
    "create_category",
    "create_product",
    "delete_category",
    "delete_product",
    "derived_columns",
    "duplicate_name_message",
    "existing_product_ids",
    "featured_products",
    "missing_products_message",
    "find_category",
    "get_product",
    "is_visible",
    "list_brands",
    "list_categories",
    "list_products",
    "category_key",
    "name_key",
    "name_sort",
    "parse_datetime",
    "parse_money",
    "apply_due_prices",
    "price_columns",
    "refresh_due_prices",
    "refresh_if_due",
    "product_name_taken",
    "products_by_ids",
    "refresh_derived",
    "resolve_ordering",
    "restock",
    "slugify",
    "update_category",
    "update_product",
    "validation_detail",
    "visible_clause",
]
