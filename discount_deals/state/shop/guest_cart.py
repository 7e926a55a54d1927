"""A guest's cart as the browser keeps it (``cart-storage``, CLIENT-CONTRACT §7), read against
today's catalogue: a line of a hidden product stays, marked "No longer available" as an
account's line is; a line of a deleted product goes, and its stored name says which."""

from __future__ import annotations

import json

from sqlmodel import Session

from ...services import ValidationFailed, catalog


def read_guest_cart(raw: str) -> list[dict]:
    """The entries of the client's ``cart-storage`` ({state: {cart: [...]}, version}); junk reads as empty."""
    try:
        data = json.loads(raw) if raw else {}
        entries = data.get("state", {}).get("cart", [])
    except (ValueError, AttributeError):
        return []
    cleaned = []
    for entry in entries if isinstance(entries, list) else []:
        product = entry.get("product") if isinstance(entry, dict) else None
        quantity = entry.get("quantity") if isinstance(entry, dict) else None
        if isinstance(product, dict) and isinstance(product.get("id"), str) and isinstance(quantity, int) and quantity > 0:
            cleaned.append({"product": product, "quantity": quantity})
    return cleaned


def write_guest_cart(entries: list[dict]) -> str:
    return json.dumps({"state": {"cart": entries}, "version": 0}) if entries else ""


def guest_lines(session: Session, entries: list[dict]) -> tuple[list[tuple], list[dict], list[str]]:
    """The lines to show as (key, product, category, quantity), the entries kept, and the names
    (as the browser stored them) of the products deleted since."""
    found = catalog.products_by_ids(session, [e["product"]["id"] for e in entries], hidden=True)
    kept = [e for e in entries if e["product"]["id"] in found]
    gone = [str(e["product"].get("name") or "A product") for e in entries if e["product"]["id"] not in found]
    rows = [(e["product"]["id"], *found[e["product"]["id"]], e["quantity"]) for e in kept]
    return rows, kept, gone


def guest_product(session, product_id: str):
    """A guest line's product and category, hidden ones too (check_quantity then says it is no
    longer available); 400 "Product not found." for one deleted."""
    found = catalog.products_by_ids(session, [product_id], hidden=True).get(product_id)
    if found is None:
        raise ValidationFailed("Product not found.", fields={"product": ["Product not found."]})
    return found
