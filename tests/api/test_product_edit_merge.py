"""Two admins edit one product: the second save merges with the first (services.catalog.form_merge).

Admin A opened Edit (price 20.00, active); admin B raised the price to 35.00 and hid the product;
A changed only the description and saved: the row was back at 20.00 and active (B's price rise
lost, the hidden product on sale again). The back office now sends ``seen``, what its form showed.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from discount_deals.db import session_scope
from discount_deals.models import Category, Product
from discount_deals.state.admin.product_form import form_values, product_payload

WINDOW_END = (datetime.now(UTC) + timedelta(days=30)).replace(second=0, microsecond=0)


@pytest.fixture
def pantry(make_category) -> Category:
    return make_category("Pantry")


@pytest.fixture
def kettle(make_product, pantry) -> Product:
    return make_product("Merge Kettle", category=pantry, price="20.00", stock=7, tags=["kitchen", "tea"])


def opened(product_id: str) -> tuple[dict, dict]:
    """What the back office's Edit form shows (its fields) and keeps (``seen``)."""
    with session_scope() as session:
        shown = dataclasses.asdict(form_values(session.get(Product, product_id)))
    return {f"product_{name}": value for name, value in shown.items()}, shown


def saved_from(form: dict, seen: dict | None, **typed) -> dict:
    """The back office's save: the form's fields (with what the admin ``typed``) and ``seen``."""
    payload = product_payload({**form, **{f"product_{name}": value for name, value in typed.items()}})
    return payload if seen is None else {**payload, "seen": seen}


def row(product_id: str) -> Product:
    with session_scope() as session:
        product = session.get(Product, product_id)
        session.expunge(product)
        return product


def put(client, admin_headers, product_id: str, body: dict):
    return client.put(f"/api/products/{product_id}/", json=body, headers=admin_headers)


def test_a_stale_form_keeps_the_other_admins_price_and_status(client, admin_headers, kettle):
    form, seen = opened(kettle.id)  # admin A opens Edit
    b_form, b_seen = opened(kettle.id)  # admin B too, and saves first
    b_saved = put(client, admin_headers, kettle.id,
                  saved_from(b_form, b_seen, price="35.00", status="inactive", discount_price="30.00",
                             discount_end=WINDOW_END.strftime("%Y-%m-%dT%H:%M"), tags="kitchen, tea, gift"))
    assert b_saved.status_code == 200, b_saved.text

    a_saved = put(client, admin_headers, kettle.id, saved_from(form, seen, description="Whistles when done"))
    assert a_saved.status_code == 200, a_saved.text
    after = row(kettle.id)
    assert (str(after.price), after.status, after.description) == ("35.00", "inactive", "Whistles when done")
    assert (str(after.discount_price), after.tags, after.stock) == ("30.00", ["kitchen", "tea", "gift"], 7)
    assert after.discount_end.replace(tzinfo=UTC) == WINDOW_END


def test_a_field_both_admins_changed_refuses_the_whole_save(client, admin_headers, kettle):
    form, seen = opened(kettle.id)
    b_form, b_seen = opened(kettle.id)
    assert put(client, admin_headers, kettle.id, saved_from(b_form, b_seen, name="Merge Kettle Pro", price="35.00",
                                                            status="inactive")).status_code == 200

    refused = put(client, admin_headers, kettle.id, saved_from(form, seen, name="Merge Kettle 2L", price="25.00",
                                                               status="active", description="Lost on refusal"))
    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "product_changed"
    assert body["detail"] == "This product was changed meanwhile (name, price). Check the form and save again."
    assert (body["name"], body["price"]) == (["Changed meanwhile to Merge Kettle Pro."], ["Changed meanwhile to 35.00."])
    after = row(kettle.id)  # nothing written: not even the description nobody else touched
    assert (after.name, str(after.price), after.status, after.description) == (
        "Merge Kettle Pro", "35.00", "inactive", kettle.description)

    # The form reloaded with the product as it is now: the admin's save goes through.
    form, seen = opened(kettle.id)
    again = put(client, admin_headers, kettle.id, saved_from(form, seen, price="25.00", status="active"))
    assert again.status_code == 200, again.text
    assert (str(row(kettle.id).price), row(kettle.id).status) == ("25.00", "active")


def test_typing_what_the_other_admin_typed_is_no_conflict(client, admin_headers, kettle):
    form, seen = opened(kettle.id)
    b_form, b_seen = opened(kettle.id)
    assert put(client, admin_headers, kettle.id, saved_from(b_form, b_seen, price="35.00")).status_code == 200
    same = put(client, admin_headers, kettle.id, saved_from(form, seen, price="35", brand="Tefal"))
    assert same.status_code == 200, same.text
    assert (str(row(kettle.id).price), row(kettle.id).brand) == ("35.00", "Tefal")


def test_a_merged_discount_above_the_kept_price_is_refused(client, admin_headers, kettle):
    """B lowered the price to 12.00; A, on the old form, added a discount of 15.00 (under the
    20.00 it saw): kept B's price, the discount would be above it."""
    form, seen = opened(kettle.id)
    b_form, b_seen = opened(kettle.id)
    assert put(client, admin_headers, kettle.id, saved_from(b_form, b_seen, price="12.00")).status_code == 200
    refused = put(client, admin_headers, kettle.id, saved_from(form, seen, discount_price="15.00"))
    assert refused.status_code == 400 and refused.json()["discount_price"] == [
        "Discount price must not be above the price."]
    after = row(kettle.id)
    assert (str(after.price), after.discount_price) == ("12.00", None)


def test_an_untouched_form_saves_and_changes_nothing(client, admin_headers, make_product, pantry):
    """Seconds in a stored window, a rating with reviews' decimals, money stored as 20: an Edit
    saved as it opened counts nothing as changed, even after the product moved meanwhile."""
    start = datetime(2026, 1, 2, 9, 30, 45, tzinfo=UTC)
    product = make_product("Untouched Kettle", category=pantry, price="20.00", discount_price="18.5",
                           discount_start=start, discount_end=WINDOW_END, rating=4.25, stock=3,
                           per_customer_limit=2, related_products=[], tags=[])
    form, seen = opened(product.id)
    with session_scope() as session:  # an order took a unit and another admin featured it
        stored = session.get(Product, product.id)
        stored.stock, stored.is_featured = 2, True
    saved = put(client, admin_headers, product.id, saved_from(form, seen))
    assert saved.status_code == 200, saved.text
    after = row(product.id)
    assert (after.stock, after.is_featured, str(after.price), str(after.discount_price)) == (2, True, "20.00", "18.50")
    assert (after.per_customer_limit, after.rating) == (2, 4.25)
    assert after.discount_start.replace(tzinfo=UTC) == start.replace(second=0)  # written as the form shows it


def test_the_original_clients_put_without_a_snapshot_is_last_write_wins(client, admin_headers, kettle):
    form, _seen = opened(kettle.id)
    b_form, b_seen = opened(kettle.id)
    assert put(client, admin_headers, kettle.id,
               saved_from(b_form, b_seen, price="35.00", status="inactive")).status_code == 200
    stale = put(client, admin_headers, kettle.id, saved_from(form, None, description="Old form, no snapshot"))
    assert stale.status_code == 200, stale.text
    after = row(kettle.id)
    assert (str(after.price), after.status, after.description) == ("20.00", "active", "Old form, no snapshot")


def test_the_api_takes_a_snapshot_too_and_refuses_one_that_is_no_object(client, admin_headers, kettle):
    patched = client.patch(f"/api/products/{kettle.id}/", json={"status": "inactive"}, headers=admin_headers)
    assert patched.status_code == 200
    kept = client.patch(f"/api/products/{kettle.id}/",
                        json={"price": 21, "status": "active", "seen": {"price": 20, "status": "active"}},
                        headers=admin_headers)
    assert kept.status_code == 200, kept.text
    assert (str(row(kettle.id).price), row(kettle.id).status) == ("21.00", "inactive")
    bad = put(client, admin_headers, kettle.id, {**saved_from(*opened(kettle.id)), "seen": "everything"})
    assert bad.status_code == 400 and bad.json()["seen"] == ["Send what the form showed as an object of its fields."]


def test_a_field_left_as_shown_that_is_no_longer_valid_keeps_the_products_own(client, admin_headers, make_product,
                                                                              make_category):
    """Review 81: the form's own values were validated before the merge, so a stale form whose
    untouched fields named what went meanwhile was refused for good (400) over fields the admin
    never touched: a related product deleted, a category moved and the old one removed, the old
    name taken by another product."""
    old, new = make_category("Old Shelf"), make_category("New Shelf")
    other = make_product("Merge Teapot", category=old)
    kettle = make_product("Merge Kettle 2", category=old, related_products=[other.id])
    form, seen = opened(kettle.id)  # admin A opens Edit
    b_form, b_seen = opened(kettle.id)
    assert put(client, admin_headers, kettle.id, saved_from(b_form, b_seen, category=new.id,
                                                          name="Merge Kettle 2 Pro")).status_code == 200
    assert client.delete(f"/api/products/{other.id}/", headers=admin_headers).status_code in (200, 204)
    assert client.delete(f"/api/category/{old.id}/", headers=admin_headers).status_code in (200, 204)
    make_product("Merge Kettle 2", category=new)  # the old name goes to a new product

    saved = put(client, admin_headers, kettle.id, saved_from(form, seen, description="A changed only this"))
    assert saved.status_code == 200, saved.text
    stored = row(kettle.id)
    assert (stored.description, stored.name, stored.category_id, stored.related_products) == (
        "A changed only this", "Merge Kettle 2 Pro", new.id, [])


def test_a_snapshot_may_name_the_category_by_its_slug_as_the_body_may(client, admin_headers, kettle, pantry,
                                                                       make_category):
    """Review 81: the body takes a category by id, slug or name; a snapshot naming it by slug
    was compared with the stored id, and every save read as a change meanwhile (409)."""
    spices = make_category("Spices")
    moved = client.patch(f"/api/products/{kettle.id}/", json={"category": spices.slug, "seen": {"category": pantry.slug}},
                         headers=admin_headers)
    assert moved.status_code == 200, moved.text
    assert row(kettle.id).category_id == spices.id
