"""services.catalog called directly, as the Reflex UI does: queries, permissions, validation helpers."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from discount_deals.db import session_scope
from discount_deals.models import Product
from discount_deals.services import NotAuthenticated, NotFound, PermissionDenied, ValidationFailed, catalog


@pytest.fixture
def data(make_category, make_product):
    food = make_category("Food")
    tech = make_category("Tech")
    return {
        "food": food,
        "tech": tech,
        "rice": make_product("Rice", "10.00", "7.00", category=food, brand="shoprite", is_featured=True),
        "oil": make_product("Oil", "20.00", category=food, brand="Shoprite", is_featured=True),
        "phone": make_product("Phone", "200.00", "150.00", category=tech, brand="melcom", is_featured=True),
        "radio": make_product("Radio", "30.00", category=tech, brand="melcom", status="inactive", is_featured=True),
        "tv": make_product("TV", "300.00", category=tech, brand="", is_available=False),
    }


def test_list_products_returns_pairs_and_page_numbers(session, data):
    page = catalog.list_products(session, page=1, page_size=2, ordering="name")
    assert page.count == 3 and page.page == 1 and page.page_size == 2 and page.total_pages == 2
    assert [(p.name, c.name) for p, c in page.items] == [("Oil", "Food"), ("Phone", "Tech")]
    last = catalog.list_products(session, page=2, page_size=2, ordering="name")
    assert [p.name for p, _ in last.items] == ["Rice"]
    beyond = catalog.list_products(session, page=3, page_size=2, ordering="name")
    assert beyond.items == [] and beyond.count == 3
    empty = catalog.list_products(session, category="nothing")
    assert empty.items == [] and empty.count == 0 and empty.total_pages == 0
    with pytest.raises(ValidationFailed):
        catalog.list_products(session, page=0)


def test_admins_see_hidden_products_by_default_and_nobody_else_ever(session, data, customer, admin):
    visible = ["Oil", "Phone", "Rice"]
    everything = ["Oil", "Phone", "Radio", "Rice", "TV"]

    def listed(**options) -> list[str]:
        return [p.name for p, _ in catalog.list_products(session, ordering="name", **options).items]

    assert listed(include_inactive=True) == visible
    assert listed(include_inactive=True, actor=customer) == visible
    assert listed(actor=admin) == everything
    assert listed(include_inactive=True, actor=admin) == everything
    assert listed(include_inactive=False, actor=admin) == visible


def test_page_size_is_capped(session, data):
    assert catalog.list_products(session, page_size=10**6).page_size == 1000


def test_invalid_filters_raise_validation_errors(session, data):
    with pytest.raises(ValidationFailed) as bad_range:
        catalog.list_products(session, price_range="1-2")
    assert "price_range" in bad_range.value.fields
    with pytest.raises(ValidationFailed) as bad_order:
        catalog.list_products(session, ordering="random")
    assert "ordering" in bad_order.value.fields
    # No ordering: newest first (no search) — the fixture created Rice, Oil, Phone in that order.
    assert [p.name for p, _ in catalog.list_products(session, ordering="").items] == ["Phone", "Oil", "Rice"]


def test_featured_products(session, data):
    assert [p.name for p, _ in catalog.featured_products(session)] == ["Phone", "Rice", "Oil"]
    assert [p.name for p, _ in catalog.featured_products(session, limit=1)] == ["Phone"]


def test_get_product_respects_visibility(session, data, customer, admin):
    product, category = catalog.get_product(session, data["rice"].id)
    assert product.name == "Rice" and category.name == "Food"
    for hidden in ("radio", "tv"):
        with pytest.raises(NotFound):
            catalog.get_product(session, data[hidden].id, actor=customer)
        assert catalog.get_product(session, data[hidden].id, actor=admin)[0].id == data[hidden].id
    with pytest.raises(NotFound):
        catalog.get_product(session, "missing")


def test_brand_counts_and_brands_cover_visible_products_only(session, data, make_product):
    make_product("Hidden Game", category=data["tech"], brand="game", status="inactive")
    make_product("Unavailable Makro", category=data["tech"], brand="makro", is_available=False)
    assert catalog.brand_counts(session, ["shoprite", "melcom", "game"]) == {"shoprite": 2, "melcom": 1, "game": 0}
    # One spelling per brand, blanks and hidden products left out.
    assert catalog.list_brands(session) == ["melcom", "Shoprite"]


def test_list_categories(session, make_category):
    for name in ("beta", "Alpha", "gamma"):
        make_category(name)
    categories, count = catalog.list_categories(session)
    assert count == 3 and [c.name for c in categories] == ["Alpha", "beta", "gamma"]
    sliced, count = catalog.list_categories(session, offset=1, limit=1)
    assert count == 3 and [c.name for c in sliced] == ["beta"]


@pytest.mark.parametrize("role", [None, "customer"])
def test_writes_enforce_admin_in_the_service(session, data, make_user, role):
    actor = make_user(role=role) if role else None
    expected = NotAuthenticated if role is None else PermissionDenied
    body = {"name": "New", "price": "1.00", "category": "food"}
    calls = [
        lambda: catalog.create_product(session, actor, body),
        lambda: catalog.update_product(session, actor, data["rice"].id, body),
        lambda: catalog.update_product(session, actor, data["rice"].id, {"stock": 1}, partial=True),
        lambda: catalog.delete_product(session, actor, data["rice"].id),
        lambda: catalog.create_category(session, actor, {"name": "New"}),
    ]
    for call in calls:
        with pytest.raises(expected):
            call()


def test_create_update_delete_as_admin(admin, make_category):
    make_category("Food")
    with session_scope() as session:
        product = catalog.create_product(
            session, admin, {"name": "  Gari 2kg ", "price": "4.75", "discount_price": "4.00", "category": "Food"}
        )
        assert product.name == "Gari 2kg" and product.name_key == "gari 2kg"
        assert product.effective_price == Decimal("4.00") and product.discount_percent == 16
        product_id = product.id
    with session_scope() as session:
        updated = catalog.update_product(session, admin, product_id, {"discount_price": "2.00"}, partial=True)
        assert updated.effective_price == Decimal("2.00") and updated.discount_percent == 58
    with session_scope() as session:
        catalog.delete_product(session, admin, product_id)
    with session_scope() as session:
        assert session.get(Product, product_id) is None
        with pytest.raises(NotFound):
            catalog.delete_product(session, admin, product_id)


def test_create_category_as_admin(session, admin):
    category = catalog.create_category(session, admin, {"name": "Pet Food", "description": "For pets"})
    assert category.slug == "pet-food" and category.description == "For pets" and category.id
    with pytest.raises(ValidationFailed) as duplicate:
        catalog.create_category(session, admin, {"name": "pet food"})
    assert "already exists" in duplicate.value.detail


# --- validation helpers -----------------------------------------------------------------------


def test_parse_money():
    assert catalog.parse_money("12.5") == Decimal("12.50")
    assert catalog.parse_money(3) == Decimal("3.00")
    assert catalog.parse_money(" 0.10 ") == Decimal("0.10")
    for bad in ("", "1,000", "-1", "1.234", "inf", None, True, [1]):
        with pytest.raises(Exception) as error:
            catalog.parse_money(bad)
        assert error.type.__name__ == "_Invalid"


def test_parse_datetime_accepts_datetime_local_and_iso_forms():
    expected = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    assert catalog.parse_datetime("2026-11-30T10:00") == expected
    assert catalog.parse_datetime("2026-11-30T10:00:00Z") == expected
    assert catalog.parse_datetime("2026-11-30T11:00:00+01:00") == expected
    assert catalog.parse_datetime(datetime(2026, 11, 30, 10, 0)) == expected
    assert catalog.parse_datetime("2026-11-30") == datetime(2026, 11, 30, tzinfo=UTC)


def _partial_clean(body: dict, current: Product):
    """``clean_product`` as a PATCH calls it, with no categories or related products known."""
    return catalog.clean_product(
        body, resolve_category=lambda _v: None, missing_products=lambda ids: set(ids), current=current, partial=True
    )


def test_clean_product_partial_validates_only_given_fields():
    current = Product(
        name="X", price=Decimal("10.00"), discount_price=Decimal("5.00"), category_id="c", effective_price=Decimal(5)
    )
    values, errors = _partial_clean({"stock": "4"}, current)
    assert values == {"stock": 4} and errors == {}
    values, errors = _partial_clean({"price": "4.00"}, current)
    assert errors == {"discount_price": ["Discount price must not be above the price."]}


def test_derived_columns_and_slugify():
    assert catalog.derived_columns(" Big  Box ", Decimal("10.00"), Decimal("7.50")) == {
        "name_key": "big box",
        "name_sort": "big box",
        "effective_price": Decimal("7.50"),
        "discount_percent": 25,
        "price_changes_at": None,
    }
    assert catalog.derived_columns("x", Decimal("10.00"), None)["effective_price"] == Decimal("10.00")
    assert catalog.slugify("  Baby & Kids  ") == "baby-kids"
    assert catalog.validation_detail({"name": ["This field is required."], "price": ["Must not be negative."]}) == (
        "Please fill in all required fields: name."
    )


def test_products_by_ids_returns_visible_products_only(session, data):
    wanted = [data["rice"].id, data["radio"].id, data["tv"].id, "missing", data["phone"].id, data["rice"].id]
    found = catalog.products_by_ids(session, wanted)
    assert set(found) == {data["rice"].id, data["phone"].id}
    product, category = found[data["phone"].id]
    assert product.name == "Phone" and category.name == "Tech"
    assert catalog.products_by_ids(session, []) == {}
