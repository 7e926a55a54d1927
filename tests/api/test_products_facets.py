"""Issue 24: GET /api/products/facets/ (SQLite and PostgreSQL): for the listing's filters, how many
products each choice of each facet leaves with every other filter applied, checked against a
brute-force count in Python over the same rows; and the listing's new filters (in stock, discount)."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals.db import session_scope
from discount_deals.models import Category, Product
from discount_deals.services import catalog
from discount_deals.services.catalog.search import words

from ..builders.accounts import auth_headers

URL = "/api/products/facets/"
CATEGORIES = ("Groceries", "Beverages", "Household")
BRANDS = ("shoprite", "Melcom", "melcom", "game", "")
NOUNS = ("Rice", "Tea", "Soap", "Juice", "Rice Cooker")


@pytest.fixture
def catalogue(make_category, make_product):
    """60 products over 3 categories, 4 brands (one spelled two ways) and none, every price range,
    discounts of 0 to 60 %, some out of stock, some hidden."""
    categories = [make_category(name) for name in CATEGORIES]
    for n in range(60):
        price = Decimal(5 + (n * 37) % 140)
        percent = (0, 5, 10, 20, 30, 45, 50, 60)[n % 8]
        make_product(
            f"{NOUNS[n % len(NOUNS)]} Item {n:02d}",
            f"{price:.2f}",
            f"{price * (100 - percent) / 100:.2f}" if percent else None,
            category=categories[n % 3],
            brand=BRANDS[n % len(BRANDS)],
            stock=0 if n % 7 == 0 else n,
            status="inactive" if n % 11 == 0 else "active",
            is_available=n % 13 != 0,
            description="Fresh rice for the family" if n % 9 == 0 else "Household favourite",
        )


def rows(everything: bool = False) -> list[tuple[Product, Category]]:
    with session_scope() as session:
        found = session.exec(select(Product, Category).join(Category, Category.id == Product.category_id)).all()
        return [(p, c) for p, c in found if everything or catalog.is_visible(p)]


def in_range(price: Decimal, value: str) -> bool:
    low, high = catalog.PRICE_RANGES[value]
    return price >= low and (high is None or price < high)


def keep(product: Product, category: Category, filters: dict, without: str = "") -> bool:
    """The listing's filters, as plain Python."""
    checks = {
        "search": lambda v: set(v.split()) <= set(words(f"{product.name} {product.brand} {category.name} "
                                                         f"{product.description}")),
        "category": lambda v: category.slug == v,
        "brand": lambda v: product.brand.lower() == v.lower(),
        "price_range": lambda v: in_range(product.effective_price, v),
        "discount": lambda v: product.discount_percent >= int(v),
        "in_stock": lambda v: product.stock > 0,
    }
    return all(checks[name](value) for name, value in filters.items() if name != without and value)


def brute_force(filters: dict, everything: bool = False) -> dict:
    every = rows(everything)

    def left(without: str) -> list[tuple[Product, Category]]:
        return [(p, c) for p, c in every if keep(p, c, filters, without)]

    categories = {}
    for _p, c in left("category"):
        categories[c.slug] = categories.get(c.slug, 0) + 1
    brands = {}
    for p, _c in left("brand"):
        if p.brand:
            brands[p.brand.lower()] = brands.get(p.brand.lower(), 0) + 1
    return {
        "count": len(left("")),
        "category": categories,
        "brand": brands,
        "price_range": {v: sum(in_range(p.effective_price, v) for p, _c in left("price_range"))
                        for v in catalog.PRICE_RANGES},
        "discount": {str(s): sum(p.discount_percent >= s for p, _c in left("discount")) for s in (10, 30, 50)},
        "in_stock": sum(p.stock > 0 for p, _c in left("in_stock")),
    }


def answered(body: dict) -> dict:
    return {
        "count": body["count"],
        "category": {v["value"]: v["count"] for v in body["category"]},
        "brand": {v["value"].lower(): v["count"] for v in body["brand"]},
        "price_range": {v["value"]: v["count"] for v in body["price_range"]},
        "discount": {v["value"]: v["count"] for v in body["discount"]},
        "in_stock": body["in_stock"],
    }


FILTER_CHOICES = {
    "search": ["", "rice", "household"],
    "category": ["", "groceries"],
    "brand": ["", "melcom"],
    "price_range": ["", "25-50", "100+"],
    "discount": ["", "30"],
    "in_stock": ["", "true"],
}


def test_every_count_matches_a_brute_force_count_of_the_same_rows(client, catalogue):
    combinations = list(itertools.product(*FILTER_CHOICES.values()))
    assert len(combinations) == 144
    for values in combinations:
        filters = dict(zip(FILTER_CHOICES, values, strict=True))
        response = client.get(URL, params={k: v for k, v in filters.items() if v})
        assert response.status_code == 200, (filters, response.text)
        assert answered(response.json()) == brute_force(filters), filters
        listing = client.get("/api/products/", params={**{k: v for k, v in filters.items() if v}, "page_size": 100})
        assert response.json()["count"] == listing.json()["count"], filters


def test_the_shape_labels_and_order(client, catalogue):
    body = client.get(URL, params={"category": "beverages"}).json()
    assert set(body) == {"count", "category", "brand", "price_range", "discount", "in_stock"}
    assert [v["label"] for v in body["category"]] == ["Beverages", "Groceries", "Household"]
    assert [v["value"] for v in body["category"]] == ["beverages", "groceries", "household"]
    assert [v["value"] for v in body["price_range"]] == ["0-25", "25-50", "50-100", "100+"]
    assert [v["label"] for v in body["price_range"]] == ["$0 - $25", "$25 - $50", "$50 - $100", "$100+"]
    assert [(v["value"], v["label"]) for v in body["discount"]] == [("10", "10%+"), ("30", "30%+"), ("50", "50%+")]
    assert [v["label"].lower() for v in body["brand"]] == ["game", "melcom", "shoprite"]  # blank brand left out
    # Each value is what the listing takes: choosing it lists as many products as it counted.
    for facet in ("category", "brand", "price_range", "discount"):
        for value in body[facet]:
            listed = client.get("/api/products/", params={"category": "beverages", facet: value["value"]}).json()
            assert listed["count"] == value["count"], (facet, value)


def test_admins_count_every_product_unless_they_ask_otherwise(client, catalogue, admin):
    headers = auth_headers(admin)
    assert answered(client.get(URL, headers=headers).json()) == brute_force({}, everything=True)
    shown = client.get(URL, params={"include_inactive": "false"}, headers=headers).json()
    assert answered(shown) == brute_force({})


def test_unknown_category_or_brand_counts_nothing_but_keeps_the_other_choices(client, catalogue):
    body = client.get(URL, params={"category": "furniture"}).json()
    assert body["count"] == 0 and body["in_stock"] == 0
    assert {v["value"] for v in body["category"]} == {"groceries", "beverages", "household"}
    assert body["brand"] == [] and all(v["count"] == 0 for v in body["price_range"])


def test_a_corrected_search_counts_the_products_the_listing_shows(client, catalogue):
    body = client.get(URL, params={"search": "juise"}).json()
    listing = client.get("/api/products/", params={"search": "juise"}).json()
    assert body["corrected_query"] == listing["corrected_query"] == "juice"
    assert body["count"] == listing["count"] == brute_force({"search": "juice"})["count"] > 0
    exact = client.get(URL, params={"search": "juise", "exact": "true"}).json()
    assert exact["count"] == 0 and "corrected_query" not in exact


@pytest.mark.parametrize(
    ("params", "field"),
    [({"price_range": "5-10"}, "price_range"), ({"discount": "abc"}, "discount"), ({"discount": "0"}, "discount"),
     ({"discount": "101"}, "discount"), ({"in_stock": "perhaps"}, "in_stock"), ({"search": "x" * 201}, "search")],
)
def test_invalid_filters_are_400s_naming_the_field(client, catalogue, params, field):
    for url in (URL, "/api/products/"):
        response = client.get(url, params=params)
        assert response.status_code == 400, (url, response.text)
        assert field in response.json() and response.json()["detail"]


def test_the_path_works_without_its_slash_and_is_no_product_id(client, catalogue):
    assert client.get("/api/products/facets").json() == client.get(URL).json()


def test_counts_follow_stock_running_out_and_coming_back(client, catalogue):
    before = client.get(URL, params={"category": "groceries"}).json()["in_stock"]
    listed = client.get("/api/products/", params={"category": "groceries", "in_stock": "true"}).json()["count"]
    assert listed == before
    with session_scope() as session:
        product = session.exec(select(Product).join(Category).where(Category.slug == "groceries",
                                                                    Product.stock > 0,
                                                                    Product.status == "active",
                                                                    Product.is_available == True)).first()
        product.stock = 0
    assert client.get(URL, params={"category": "groceries"}).json()["in_stock"] == before - 1
    assert client.get("/api/products/", params={"category": "groceries", "in_stock": "1"}).json()["count"] == before - 1
    with session_scope() as session:
        session.get(Product, product.id).stock = 4
    assert client.get(URL, params={"category": "groceries"}).json()["in_stock"] == before


def test_the_service_the_storefront_calls(catalogue):
    with session_scope() as session:
        facets = catalog.facet_counts(session, search="rice", category="groceries")
    assert facets.count == brute_force({"search": "rice", "category": "groceries"})["count"]
    assert [v.value for v in facets.price_range] == list(catalog.PRICE_RANGES)


@pytest.mark.parametrize("text", ['"rice', "rice*", "NEAR(rice", "rice)", "{name}: rice", "ri\u0000ce", "'; DROP TABLE x"])
def test_search_operators_are_text_and_a_nul_splits_words(client, catalogue, text):
    response = client.get(URL, params={"search": text})
    assert response.status_code == 200, response.text
    assert client.get(URL, params={"category": "gro\u0000ceries"}).status_code == 400  # not free text


def test_a_brand_with_an_accented_capital_is_one_brand_and_its_filter_finds_it(client, make_category, make_product):
    """SQLite's lower() lowers ASCII only: "Élan" (offered by the brand dropdown) found nothing,
    and the facet listed "Élan" and "élan" as two brands (a probe; PostgreSQL was right)."""
    shelf = make_category("Tins")
    make_product(name="Élan Sardines", brand="Élan", category=shelf)
    make_product(name="Elan Tuna", brand="élan", category=shelf)
    make_product(name="Melcom Rice", brand="Melcom", category=shelf)
    with session_scope() as session:
        assert catalog.list_brands(session) == ["Melcom", "Élan"]
        assert catalog.brand_counts(session, ["ÉLAN", "melcom"]) == {"ÉLAN": 2, "melcom": 1}
    for typed in ("Élan", "élan", "ÉLAN"):
        found = client.get("/api/products/", params={"brand": typed}).json()
        assert sorted(p["name"] for p in found["results"]) == ["Elan Tuna", "Élan Sardines"], typed
    facet = client.get(URL, params={"category": "tins"}).json()["brand"]
    assert [(v["label"], v["count"]) for v in facet] == [("Melcom", 1), ("Élan", 2)]
