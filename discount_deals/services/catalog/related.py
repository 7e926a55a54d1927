"""Related products for a product page.

The product's own ``related_products`` come first, in the order the admin gave them (visible
ones only, whatever their stock: the admin chose them). The rest of the places go to products of
the same category that are visible and in stock, biggest discount first, then by name. The
product itself is never among them.
"""

from __future__ import annotations

from sqlmodel import Session, select

from ...models import Category, Product
from . import products_by_ids, visible_clause

DEFAULT_LIMIT = 4


def related_products(session: Session, product: Product, limit: int = DEFAULT_LIMIT) -> list[tuple[Product, Category]]:
    """Up to ``limit`` products to show under ``product`` (see the module docstring)."""
    if limit <= 0:
        return []
    chosen_ids = [pid for pid in dict.fromkeys(product.related_products or []) if isinstance(pid, str) and pid != product.id]
    found = products_by_ids(session, chosen_ids[: limit * 4]) if chosen_ids else {}
    related = [found[pid] for pid in chosen_ids if pid in found][:limit]
    missing = limit - len(related)
    if missing > 0:
        taken = {product.id, *(p.id for p, _ in related)}
        rows = session.exec(
            select(Product, Category)
            .join(Category, Category.id == Product.category_id)
            .where(
                visible_clause(),
                Product.category_id == product.category_id,
                Product.stock > 0,
                Product.id.not_in(taken),
            )
            .order_by(Product.discount_percent.desc(), Product.name_sort.asc(), Product.name_key.asc(), Product.id.asc())
            .limit(missing)
        ).all()
        related.extend((p, c) for p, c in rows)
    return related
