"""A product looks the same on every face (display.ProductFace): the cards, the product page, the
cart's lines and the back office's rows take its name, picture and prices from one builder."""

from __future__ import annotations

from decimal import Decimal

from discount_deals.display import face_fields, product_view
from discount_deals.models import Category, Product
from discount_deals.state.admin.product_form import product_row
from discount_deals.state.shop.cart import CartRow


def _product(**fields) -> Product:
    values = {"id": "p1", "name": "Gari 1kg", "description": "Dry", "brand": None, "price": Decimal("20.00"),
              "discount_price": Decimal("15.00"), "stock": 4, "image_url": "", "category_id": "c1", **fields}
    return Product(**values)


def test_a_cart_line_and_a_card_show_the_same_product_alike():
    product, category = _product(), Category(id="c1", name="Groceries", slug="groceries")
    card = product_view(product, category)
    line = CartRow(key="l1", product_id=product.id, quantity=2,
                   **face_fields(product, category, Decimal("15.00"), discounted=True))
    shared = ("name", "description", "brand", "category", "image_url", "price_text", "original_text", "has_discount")
    assert {name: getattr(line, name) for name in shared} == {name: getattr(card, name) for name in shared}
    assert (line.price_text, line.original_text, line.brand, line.category) == ("$15.00", "$20.00", "", "Groceries")


def test_a_product_without_a_picture_shows_the_shops_placeholder_everywhere(use_settings):
    use_settings(DD_PLACEHOLDER_IMAGE_URL="https://cdn.example.com/none.webp")
    product = _product()
    assert face_fields(product, None, Decimal("15.00"), discounted=True)["image_url"] == "https://cdn.example.com/none.webp"
    assert product_view(product, None).image_url == "https://cdn.example.com/none.webp"
    # The back office's list used "/placeholder.webp" whatever the shop's setting said.
    assert product_row(product, None).image_url == "https://cdn.example.com/none.webp"
