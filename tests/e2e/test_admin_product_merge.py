"""Two admins on one product in Chromium: the second save no longer undoes the first
(services.catalog.form_merge). The other admin's change is written to the server's database
between opening Edit and saving, as it would land from another browser."""

from __future__ import annotations

from decimal import Decimal

from playwright.sync_api import Page, expect

from discount_deals.models import Product
from discount_deals.services.catalog import refresh_derived

from .test_admin import open_admin, product_named, toast


def other_admin_saves(live_server, product_id: str, **fields) -> None:
    with live_server.session() as session:
        product = session.get(Product, product_id)
        for name, value in fields.items():
            setattr(product, name, Decimal(value) if name == "price" else value)
        session.add(refresh_derived(product))


def test_a_stale_edit_keeps_the_other_admins_change_and_a_clash_shows_the_product_now(
        page: Page, live_user, live_server, live_product):
    product = live_product(price="20.00")
    open_admin(page, live_user, "Products")
    page.get_by_label("Search products").fill(product.name)
    row = page.get_by_role("list", name="Products").get_by_role("listitem").filter(has_text=product.name)
    row.get_by_role("button", name=f"Edit {product.name}").click()
    expect(page.get_by_label("Price", exact=True)).to_have_value("20.00")
    other_admin_saves(live_server, product.id, price="35.00", status="inactive")
    page.get_by_label("Description").fill("Only the description, from an old form")
    page.get_by_role("button", name="Update Product").click()
    expect(toast(page, "Product updated")).to_be_visible()
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    saved = product_named(live_server, product.name)
    assert (saved.price, saved.status, saved.description) == (
        Decimal("35.00"), "inactive", "Only the description, from an old form")

    # Both change the price: refused, nothing written, the form shows the product as it is now.
    row.get_by_role("button", name=f"Edit {product.name}").click()
    expect(page.get_by_label("Price", exact=True)).to_have_value("35.00")
    other_admin_saves(live_server, product.id, price="40.00")
    page.get_by_label("Price", exact=True).fill("25.00")
    page.get_by_role("button", name="Update Product").click()
    refused = toast(page, "This product was changed meanwhile (price). Check the form and save again.")
    expect(refused).to_be_visible()
    expect(refused).to_contain_text("Error")
    expect(page.get_by_role("heading", name="Edit Product")).to_be_visible()  # still editing
    expect(page.get_by_label("Price", exact=True)).to_have_value("40.00")
    assert product_named(live_server, product.name).price == Decimal("40.00")
    page.get_by_label("Price", exact=True).fill("25.00")
    page.get_by_role("button", name="Update Product").click()
    expect(page.get_by_role("heading", name="Add New Product")).to_be_visible()
    assert product_named(live_server, product.name).price == Decimal("25.00")
