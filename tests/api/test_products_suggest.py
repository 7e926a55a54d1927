"""Issue 24: GET /api/products/suggest/?q= while the shopper types (SQLite and PostgreSQL): the last
word as a word start, typos tolerated on it when the exact text finds too few, at most 8 products
and 3 categories, hidden products for admins only; and the service the storefront's combobox calls."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from discount_deals.db import session_scope
from discount_deals.services import catalog

from ..builders.accounts import auth_headers

URL = "/api/products/suggest/"


@pytest.fixture
def shelf(make_category, make_product):
    groceries = make_category("Groceries")
    health = make_category("Health & Beauty")
    grains = make_category("Grains and Cereals")
    s = SimpleNamespace(groceries=groceries, health=health, grains=grains)
    s.jasmine = make_product("Royal Aroma Jasmine Rice 5kg", "20.00", "18.50", category=groceries,
                             image_url="/api/media/demo/jasmine.webp")
    s.brown = make_product("Brown Rice 2kg", "12.00", category=grains)
    s.panadol = make_product("Panadol Extra 24 Tablets", "3.50", category=health, description="Pain relief")
    s.pads = make_product("Always Ultra Pads", "8.00", category=health, description="Comfort at a nice price")
    s.hidden = make_product("Panadol Hidden Pack", "1.00", category=health, status="inactive")
    return s


def suggest(client, q: str, **kwargs) -> dict:
    response = client.get(URL, params={"q": q}, **kwargs)
    assert response.status_code == 200, response.text
    return response.json()


def names(body: dict) -> list[str]:
    return [p["name"] for p in body["products"]]


def test_the_answer_has_the_fields_a_combobox_needs(client, shelf):
    body = suggest(client, "jasm")
    assert body == {
        "products": [{
            "id": shelf.jasmine.id,
            "name": "Royal Aroma Jasmine Rice 5kg",
            "effective_price": "18.50",
            "image_url": "http://testserver/api/media/demo/jasmine.webp",
        }],
        "categories": [],
    }


def test_the_last_word_is_a_word_start_the_others_whole_words(client, shelf):
    assert names(suggest(client, "ri")) == ["Brown Rice 2kg", "Royal Aroma Jasmine Rice 5kg"]  # newest first
    assert names(suggest(client, "jasmine ri")) == ["Royal Aroma Jasmine Rice 5kg"]
    assert names(suggest(client, "jasm ri")) == []  # "jasm" is not the word being typed
    assert names(suggest(client, "pric")) == []  # a description alone suggests nothing


def test_typos_on_the_word_being_typed(client, shelf):
    assert names(suggest(client, "panadl")) == ["Panadol Extra 24 Tablets"]
    assert names(suggest(client, "pnado")) == ["Panadol Extra 24 Tablets"]  # a letter missing, mid-word
    assert names(suggest(client, "rcie")) == ["Brown Rice 2kg", "Royal Aroma Jasmine Rice 5kg"]
    assert names(suggest(client, "brwn ri")) == ["Brown Rice 2kg"]  # an earlier word corrected
    assert names(suggest(client, "eice")) == []  # never the first letter
    assert names(suggest(client, "rc")) == []  # too short for a typo


def test_exact_matches_come_before_typo_matches(client, shelf, make_product):
    make_product("Papa Toast", "2.00", category=shelf.groceries)
    make_product("Pans Set", "30.00", category=shelf.groceries)
    make_product("Pairs Socks", "3.00", category=shelf.groceries)  # two typos from "pana"
    # "pana" starts Panadol exactly; "pans" and "papa" are one typo away.
    assert names(suggest(client, "pana")) == ["Panadol Extra 24 Tablets", "Pans Set", "Papa Toast"]


def test_hidden_products_are_suggested_to_admins_only(client, shelf, customer_headers, admin):
    assert names(suggest(client, "panad")) == ["Panadol Extra 24 Tablets"]
    assert names(suggest(client, "panad", headers=customer_headers)) == ["Panadol Extra 24 Tablets"]
    assert names(suggest(client, "panad", headers=auth_headers(admin))) == [
        "Panadol Hidden Pack", "Panadol Extra 24 Tablets"
    ]


def test_categories_by_name_start_and_typo(client, shelf):
    assert suggest(client, "gr")["categories"] == [
        {"id": shelf.grains.id, "name": "Grains and Cereals", "slug": "grains-and-cereals"},
        {"id": shelf.groceries.id, "name": "Groceries", "slug": "groceries"},
    ]
    assert [c["name"] for c in suggest(client, "grocr")["categories"]] == ["Groceries"]  # a letter missing
    assert [c["name"] for c in suggest(client, "health bea")["categories"]] == ["Health & Beauty"]
    assert suggest(client, "rice")["categories"] == []


def test_at_most_eight_products_and_three_categories_names_first_newest_first(client, make_category, make_product):
    make_product("Green Tea Bags", "1.00", category=make_category("Drinks"))
    for n in range(5):
        category = make_category(f"Tea Shelf {n}")
        for m in range(3):
            make_product(f"Shelf Item {n}{m}", "1.00", category=category)  # "tea" in the category only
    make_product("Lipton Tea", "1.00", category=make_category("More Drinks"))
    body = suggest(client, "tea")
    assert len(body["products"]) == 8 and len(body["categories"]) == 3
    assert names(body) == ["Lipton Tea", "Green Tea Bags", "Shelf Item 42", "Shelf Item 41", "Shelf Item 40",
                           "Shelf Item 32", "Shelf Item 31", "Shelf Item 30"]


@pytest.mark.parametrize("q", ["", "   ", "***", "-", '"', "or", "a"])
def test_nothing_to_suggest_is_an_empty_answer(client, shelf, q):
    assert suggest(client, q) == {"products": [], "categories": []}


@pytest.mark.parametrize("q", ['"jasm', "jasm*", "NEAR(jasm", "jasm)", "{name}: jasm", "ja\u0000sm", "'; DROP TABLE product"])
def test_operator_characters_are_text(client, shelf, q):
    assert client.get(URL, params={"q": q}).status_code == 200


def test_too_long_text_is_a_400_naming_q(client, shelf):
    response = client.get(URL, params={"q": "r" * 201})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "Search text is too long: at most 200 characters.",
        "q": ["Search text is too long: at most 200 characters."],
    }


def test_the_path_works_with_and_without_its_slash_and_is_no_product_id(client, shelf):
    assert client.get("/api/products/suggest", params={"q": "jasm"}).json() == suggest(client, "jasm")
    assert client.post(URL).status_code == 405


def test_the_service_the_storefront_calls(shelf, customer):
    with session_scope() as session:
        found = catalog.suggest(session, "panadl", actor=customer)
        assert [product.name for product, _category in found.products] == ["Panadol Extra 24 Tablets"]
        found = catalog.suggest(session, "heal", limit=0)
        assert found.products == [] and [c.slug for c in found.categories] == ["health-beauty"]
