"""Full-text search over GET /api/products/: words not substrings, prefixes, every word, accents,
best match first, hostile text. Runs on SQLite (FTS5) and, in `make test-postgres`, PostgreSQL."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from discount_deals.db import session_scope
from discount_deals.models import Category, Product

from ..builders.accounts import auth_headers

URL = "/api/products/"


@pytest.fixture
def shelf(make_category, make_product):
    groceries = make_category("Groceries")
    drinks = make_category("Beverages")
    kitchen = make_category("Kitchen")
    s = SimpleNamespace(groceries=groceries, drinks=drinks, kitchen=kitchen)
    s.jasmine = make_product("Jasmine Rice 5kg", "30.00", category=groceries, description="Fragrant long grain")
    s.brown = make_product("Brown Rice 2kg", "12.00", category=groceries, description="Wholegrain")
    s.pads = make_product(
        "Always Ultra Pads", "8.00", category=groceries, description="Comfort at a price that makes sense"
    )
    s.nescafe = make_product("Nescafé Gold 200g", "25.00", category=drinks, brand="nestle", description="Coffee")
    s.cooker = make_product("Rice Cooker 1.8L", "60.00", category=kitchen, brand="melcom", description="Cooks fast")
    s.grains = make_product("Golden Grains", "9.00", category=groceries, brand="RiceLand", description="Mixed grains")
    s.pot = make_product("Stew Pot", "20.00", category=kitchen, brand="melcom", description="Perfect for rice dishes")
    s.hidden = make_product("Rice Hidden", "5.00", category=groceries, status="inactive")
    return s


def search(client, text: str, **params) -> list[str]:
    response = client.get(URL, params={"search": text, **params})
    assert response.status_code == 200, response.text
    return [item["name"] for item in response.json()["results"]]


def test_whole_words_never_substrings(client, shelf):
    found = search(client, "rice")
    assert "Always Ultra Pads" not in found  # "price" in its description is not "rice"
    assert search(client, "ice") == []
    assert search(client, "rain") == []  # inside "grain" and "Grains"


def test_the_last_word_matches_word_starts(client, shelf):
    assert search(client, "jasm") == ["Jasmine Rice 5kg"]
    assert search(client, "coff") == ["Nescafé Gold 200g"]
    # Only the last word is a prefix: "jasm" before another word must be a whole word.
    assert search(client, "jasm rice") == []


def test_every_word_must_match(client, shelf):
    assert search(client, "jasmine rice") == ["Jasmine Rice 5kg"]
    assert search(client, "brown rice") == ["Brown Rice 2kg"]
    assert search(client, "jasmine cooker") == []


def test_case_and_accents_are_ignored(client, shelf):
    for text in ("nescafe", "NESCAFE", "Nescafé", "nescafé gold"):
        assert search(client, text) == ["Nescafé Gold 200g"], text


def test_best_match_first_name_then_brand_or_category_then_description(client, shelf):
    # Name matches by name, then the brand "RiceLand", then the description "rice dishes".
    assert search(client, "rice") == [
        "Brown Rice 2kg", "Jasmine Rice 5kg", "Rice Cooker 1.8L", "Golden Grains", "Stew Pot"
    ]
    assert search(client, "rice", ordering="relevance") == search(client, "rice")
    assert search(client, "groceries") == ["Always Ultra Pads", "Brown Rice 2kg", "Golden Grains", "Jasmine Rice 5kg"]


def test_best_match_pages_are_stable(client, shelf):
    first = client.get(URL, params={"search": "rice", "page_size": 2}).json()
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    names = [p["name"] for page in (first, second, third) for p in page["results"]]
    assert names == search(client, "rice") and first["count"] == 5


def test_an_ordering_asked_for_wins_over_relevance(client, shelf):
    assert search(client, "rice", ordering="price-low") == [
        "Golden Grains", "Brown Rice 2kg", "Stew Pot", "Jasmine Rice 5kg", "Rice Cooker 1.8L"
    ]
    assert search(client, "rice", category="kitchen", ordering="name") == ["Rice Cooker 1.8L", "Stew Pot"]


def test_phrases_exclusions_and_alternatives(client, shelf):
    assert search(client, '"rice cooker"') == ["Rice Cooker 1.8L"]
    assert search(client, '"cooker rice"') == []
    # The last word typed is "-jasmine": "rice" is a whole word here, so "RiceLand" is not found.
    assert search(client, "rice -brown -jasmine") == ["Rice Cooker 1.8L", "Stew Pot"]
    assert search(client, "jasmine or nescafe") == ["Jasmine Rice 5kg", "Nescafé Gold 200g"]
    assert search(client, "-rice") == []  # nothing to look for


def test_hidden_products_are_searchable_by_admins_only(client, shelf, admin):
    assert "Rice Hidden" not in search(client, "rice")
    response = client.get(URL, params={"search": "hidden"}, headers=auth_headers(admin))
    assert [p["name"] for p in response.json()["results"]] == ["Rice Hidden"]


@pytest.mark.parametrize(
    "text",
    [
        '"', "'", "*", "rice*", "NEAR(rice oil)", "rice NEAR oil", "-", "--", "(", "rice)", "((rice", "{name}: rice",
        "name:rice", "rice AND", "OR", "NOT rice", "^rice", "rice + oil", "a\\b", "'; DROP TABLE product; --",
        "%", "_", "rice & | ! <->", ":*", "🍚 rice", "\u0000rice", "   ", "ri\u0301ce",
    ],
)
def test_hostile_text_never_reaches_the_engine_raw(client, shelf, text):
    response = client.get(URL, params={"search": text})
    assert response.status_code == 200, response.text
    with session_scope() as session:
        assert session.get(Product, shelf.jasmine.id) is not None


def test_operators_are_words_not_syntax(client, shelf):
    assert search(client, "rice NOT brown") == []  # "not" is a word no product has
    assert search(client, "rice*") == search(client, "rice")


@pytest.mark.parametrize("length", [201, 10_000])
def test_search_text_over_200_characters_is_a_400(client, shelf, length):
    response = client.get(URL, params={"search": "r" * length})
    assert response.status_code == 400
    assert response.json()["detail"] == "Search text is too long: at most 200 characters."
    assert response.json()["search"] == ["Search text is too long: at most 200 characters."]
    assert client.get(URL, params={"search": "r" * 200}).status_code == 200


def test_the_index_follows_product_and_category_writes(client, shelf, admin):
    headers = auth_headers(admin)
    renamed = client.patch(f"/api/products/{shelf.brown.id}/", json={"name": "Basmati Grains"}, headers=headers)
    assert renamed.status_code == 200
    assert "Basmati Grains" not in search(client, "brown") and search(client, "basmati") == ["Basmati Grains"]
    assert client.delete(f"/api/products/{shelf.cooker.id}", headers=headers).status_code == 204
    assert search(client, "cooker") == []
    with session_scope() as session:  # a category renamed (no API for it yet): its products follow
        session.get(Category, shelf.kitchen.id).name = "Cookware"
    assert search(client, "cookware") == ["Stew Pot"]
    assert search(client, "kitchen") == []
    moved = client.patch(f"/api/products/{shelf.nescafe.id}/", json={"category": "cookware"}, headers=headers)
    assert moved.status_code == 200 and search(client, "cookware") == ["Nescafé Gold 200g", "Stew Pot"]


def test_bulk_uploads_are_searchable_at_once(client, shelf, admin):
    rows = [{"name": f"Parboiled Rice {n}", "price": "3.00", "category": "groceries"} for n in range(3)]
    response = client.post("/api/products/bulk-upload/", json={"products": rows}, headers=auth_headers(admin))
    assert response.status_code == 201
    assert search(client, "parboiled", ordering="name") == ["Parboiled Rice 0", "Parboiled Rice 1", "Parboiled Rice 2"]
