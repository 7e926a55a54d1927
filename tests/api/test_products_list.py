"""GET /api/products/, /products/featured and /products/{id}: filters, orderings, pages, visibility, JSON shape."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ..builders.accounts import auth_headers


@pytest.fixture
def shop(make_category, make_product):
    """A small catalogue with known prices, ratings, brands and visibility.

    Effective prices: Apple 8, Cable 24.99, banana 25, Earphones 25, Feeding 49.99, Iron 50, Drone 100.
    """
    groceries = make_category("Groceries")
    electronics = make_category("Electronics")
    baby = make_category("Baby & Kids")
    p = SimpleNamespace(groceries=groceries, electronics=electronics, baby=baby)
    p.apple = make_product(
        "Apple Juice", "10.00", "8.00", category=groceries, brand="Shoprite", rating=4.5, is_featured=True
    )
    p.banana = make_product("banana Chips", "25.00", category=groceries, brand="melcom", rating=3.0, is_featured=True)
    p.cable = make_product("Cable HDMI", "30.00", "24.99", category=electronics, brand="shoprite", rating=4.5)
    p.drone = make_product(
        "Drone Mini", "120.00", "100.00", category=electronics, brand="melcom", rating=5.0, is_featured=True
    )
    p.earphones = make_product(
        "Earphones", "50.00", "25.00", category=electronics, brand="game", rating=2.0, is_featured=True
    )
    p.feeding = make_product(
        "Feeding Bottle",
        "49.99",
        category=baby,
        brand="shoprite",
        rating=4.0,
        is_featured=True,
        description="BPA free, great for juice",
    )
    p.iron = make_product("Iron Box", "50.00", category=electronics, brand="Melcom", rating=1.0)
    p.hidden = make_product("Gadget Hidden", "5.00", "1.00", category=electronics, status="inactive", is_featured=True)
    p.unavailable = make_product("Hat Unavailable", "5.00", category=groceries, is_available=False)
    return p


def names(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["name"] for item in response.json()["results"]]


VISIBLE_BY_NAME = ["Apple Juice", "banana Chips", "Cable HDMI", "Drone Mini", "Earphones", "Feeding Bottle", "Iron Box"]


def test_default_listing_for_shoppers_is_featured_first_then_newest(client, shop, customer_headers):
    # Issue 24: the existing client's home page takes its "Featured Deals" from this page 1.
    response = client.get("/api/products/")
    assert names(response) == [
        "Feeding Bottle", "Earphones", "Drone Mini", "banana Chips", "Apple Juice", "Iron Box", "Cable HDMI"
    ]
    body = response.json()
    assert body["count"] == 7 and body["total_pages"] == 1
    assert body["next"] is None and body["previous"] is None
    assert names(client.get("/api/products/", headers=customer_headers)) == names(response)
    for same in ({"ordering": "featured"}, {"ordering": "relevance"}):
        assert names(client.get("/api/products/", params=same)) == names(response)
    assert names(client.get("/api/products/", params={"ordering": "newest"})) == [
        "Iron Box", "Feeding Bottle", "Earphones", "Drone Mini", "Cable HDMI", "banana Chips", "Apple Juice"
    ]
    featured_first = names(client.get("/api/products/", params={"category": "electronics"}))
    assert featured_first == ["Earphones", "Drone Mini", "Iron Box", "Cable HDMI"]


def test_default_listing_for_admins_is_newest_first(client, shop, admin_headers):
    # As the original backend: the admin screens re-read page 1 after a create and must find it.
    response = client.get("/api/products/", params={"include_inactive": "false"}, headers=admin_headers)
    assert names(response) == [
        "Iron Box", "Feeding Bottle", "Earphones", "Drone Mini", "Cable HDMI", "banana Chips", "Apple Juice"
    ]
    created = client.post("/api/products/", json={"name": "Zebra Mat", "price": "3.00", "category": "groceries"},
                          headers=admin_headers)
    assert created.status_code == 201
    assert names(client.get("/api/products/", headers=admin_headers))[0] == "Zebra Mat"


def test_ordering_by_name_is_case_insensitive(client, shop):
    assert names(client.get("/api/products/", params={"ordering": "name"})) == VISIBLE_BY_NAME


CHEAPEST_FIRST = ["Apple Juice", "Cable HDMI", "banana Chips", "Earphones", "Feeding Bottle", "Iron Box", "Drone Mini"]
DEAREST_FIRST = ["Drone Mini", "Iron Box", "Feeding Bottle", "banana Chips", "Earphones", "Cable HDMI", "Apple Juice"]
BEST_RATED_FIRST = ["Drone Mini", "Apple Juice", "Cable HDMI", "Feeding Bottle", "banana Chips", "Earphones", "Iron Box"]
# 50 %, 20 %, then Cable and Drone both 17 % (by name), then no discount (by name).
BIGGEST_DISCOUNT_FIRST = ["Earphones", "Apple Juice", "Cable HDMI", "Drone Mini", "banana Chips", "Feeding Bottle",
                          "Iron Box"]


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("name", VISIBLE_BY_NAME),
        ("-name", VISIBLE_BY_NAME[::-1]),
        ("price-low", CHEAPEST_FIRST),
        ("price", CHEAPEST_FIRST),
        ("price-high", DEAREST_FIRST),
        ("-price", DEAREST_FIRST),
        ("rating", BEST_RATED_FIRST),
        ("-rating", BEST_RATED_FIRST),
        ("discount", BIGGEST_DISCOUNT_FIRST),
        ("-discount_percent", BIGGEST_DISCOUNT_FIRST),
        (
            "discount_percent",
            ["banana Chips", "Feeding Bottle", "Iron Box", "Cable HDMI", "Drone Mini", "Apple Juice", "Earphones"],
        ),
        (
            "-created_at",
            ["Iron Box", "Feeding Bottle", "Earphones", "Drone Mini", "Cable HDMI", "banana Chips", "Apple Juice"],
        ),
        (
            "created_at",
            ["Apple Juice", "banana Chips", "Cable HDMI", "Drone Mini", "Earphones", "Feeding Bottle", "Iron Box"],
        ),
    ],
)
def test_every_ordering_on_known_data(client, shop, ordering, expected):
    assert names(client.get("/api/products/", params={"ordering": ordering})) == expected


def test_unknown_ordering_is_a_400_naming_the_field(client, shop):
    response = client.get("/api/products/", params={"ordering": "colour"})
    assert response.status_code == 400
    assert "ordering" in response.json() and "colour" in response.json()["detail"]


def test_ties_break_on_a_unique_key_so_pages_never_overlap(client, make_category, make_product):
    category = make_category("Same")
    made = [make_product(f"Twin {n:02d}", "5.00", category=category, rating=3.0) for n in range(12)]
    for ordering in ("price-low", "price-high", "rating", "discount"):
        seen, url = [], f"/api/products/?ordering={ordering}&page_size=5"
        while url:
            body = client.get(url).json()
            seen += [item["id"] for item in body["results"]]
            url = body["next"]
        assert seen == [p.id for p in sorted(made, key=lambda p: p.name)], ordering
        assert names(client.get("/api/products/", params={"ordering": ordering})) == names(
            client.get("/api/products/", params={"ordering": ordering})
        )


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("juice", ["Apple Juice", "Feeding Bottle"]),  # name and description
        ("JUICE", ["Apple Juice", "Feeding Bottle"]),
        ("MELCOM", ["banana Chips", "Drone Mini", "Iron Box"]),  # brand
        ("electro", ["Cable HDMI", "Drone Mini", "Earphones", "Iron Box"]),  # category name
        ("baby &", ["Feeding Bottle"]),
        ("%", []),  # LIKE wildcards are matched literally
        ("_", []),
        ("hidden", []),  # inactive products are not searchable by guests
    ],
)
def test_search_covers_name_description_brand_and_category_name(client, shop, search, expected):
    assert names(client.get("/api/products/", params={"search": search})) == expected


def test_category_filter_accepts_id_slug_or_name_case_insensitively(client, shop):
    electronics = ["Cable HDMI", "Drone Mini", "Earphones", "Iron Box"]
    for value in (shop.electronics.id, "electronics", "Electronics", "ELECTRONICS", " electronics "):
        assert names(client.get("/api/products/", params={"category": value, "ordering": "name"})) == electronics
    for value in ("baby-kids", "Baby & Kids", "baby & kids"):
        assert names(client.get("/api/products/", params={"category": value})) == ["Feeding Bottle"]


def test_unknown_category_gives_an_empty_page_not_an_error(client, shop):
    response = client.get("/api/products/", params={"category": "Furniture"})
    assert response.status_code == 200
    assert response.json() == {"count": 0, "next": None, "previous": None, "total_pages": 0, "results": []}


def test_brand_filter_is_case_insensitive(client, shop):
    by_name = {"ordering": "name"}
    assert names(client.get("/api/products/", params={"brand": "melcom", **by_name})) == [
        "banana Chips", "Drone Mini", "Iron Box"
    ]
    assert names(client.get("/api/products/", params={"brand": "SHOPRITE", **by_name})) == [
        "Apple Juice",
        "Cable HDMI",
        "Feeding Bottle",
    ]
    assert names(client.get("/api/products/", params={"brand": "makro"})) == []


@pytest.mark.parametrize(
    ("price_range", "expected"),
    [
        # Lower bound included, upper bound excluded: 25 and 50 each fall into exactly one range.
        ("0-25", ["Apple Juice", "Cable HDMI"]),
        ("25-50", ["banana Chips", "Earphones", "Feeding Bottle"]),
        ("50-100", ["Iron Box"]),
        ("100+", ["Drone Mini"]),
    ],
)
def test_price_ranges_use_the_effective_price_and_do_not_overlap(client, shop, price_range, expected):
    assert names(client.get("/api/products/", params={"price_range": price_range, "ordering": "name"})) == expected


def test_price_ranges_partition_the_catalogue(client, shop):
    total = sum(
        client.get("/api/products/", params={"price_range": r}).json()["count"]
        for r in ("0-25", "25-50", "50-100", "100+")
    )
    assert total == client.get("/api/products/").json()["count"]


@pytest.mark.parametrize("bad", ["10-20", "cheap", "100", "-5"])
def test_invalid_price_range_is_a_400(client, shop, bad):
    response = client.get("/api/products/", params={"price_range": bad})
    assert response.status_code == 400
    assert "price_range" in response.json()


def test_filters_combine(client, shop):
    params = {
        "search": "e",
        "category": "electronics",
        "brand": "melcom",
        "price_range": "50-100",
        "ordering": "price-high",
    }
    assert names(client.get("/api/products/", params=params)) == ["Iron Box"]
    # Words and word starts, never the inside of a word: "MI" finds "Mini" but not "HDMI".
    params = {"category": "Electronics", "ordering": "price-high", "search": "MI"}
    assert names(client.get("/api/products/", params=params)) == ["Drone Mini"]


def test_next_links_are_absolute_and_followed_to_the_end(client, shop):
    url = "/api/products/?page_size=3&ordering=price-low"
    seen, pages, previous = [], 0, None
    while url:
        response = client.get(url)
        body = response.json()
        assert response.status_code == 200
        assert body["count"] == 7 and body["total_pages"] == 3
        if pages:
            assert body["previous"].startswith("http://testserver/api/products/")
        else:
            assert body["previous"] is None
        previous = body["previous"]
        seen += [item["name"] for item in body["results"]]
        url = body["next"]
        if url:
            assert url.startswith("http://testserver/api/products/") and "ordering=price-low" in url
        pages += 1
    assert pages == 3 and previous is not None
    assert seen == [
        "Apple Juice",
        "Cable HDMI",
        "banana Chips",
        "Earphones",
        "Feeding Bottle",
        "Iron Box",
        "Drone Mini",
    ]
    assert names(client.get(previous)) == ["Earphones", "Feeding Bottle", "Iron Box"]


def test_page_past_the_end_is_a_404_and_a_bad_page_is_a_400(client, shop):
    assert client.get("/api/products/?page_size=3&page=3").status_code == 200
    assert client.get("/api/products/?page_size=3&page=4").status_code == 404
    for bad in ("0", "-1", "abc", "1.5"):
        response = client.get(f"/api/products/?page={bad}")
        assert response.status_code == 400, bad
        assert response.json()["detail"] == "Invalid page."
    assert client.get("/api/products/?page_size=zero").status_code == 400


def test_page_size_defaults_to_ten(client, make_category, make_product):
    category = make_category("Bulk")
    for n in range(13):
        make_product(f"Item {n:02d}", category=category)
    body = client.get("/api/products").json()
    assert len(body["results"]) == 10 and body["count"] == 13 and body["total_pages"] == 2
    assert names(client.get(body["next"])) == ["Item 02", "Item 01", "Item 00"]  # newest first


def test_inactive_hidden_from_guests_and_customers_but_listed_for_admins_by_default(
    client, shop, customer_headers, admin
):
    everything = sorted(VISIBLE_BY_NAME + ["Gadget Hidden", "Hat Unavailable"], key=str.lower)
    by_name = {"ordering": "name"}
    assert names(client.get("/api/products/", params={"include_inactive": "true", **by_name})) == VISIBLE_BY_NAME
    assert (
        names(client.get("/api/products/", params={"include_inactive": "true", **by_name}, headers=customer_headers))
        == VISIBLE_BY_NAME
    )
    admin_headers = auth_headers(admin)
    # The existing client's admin passes no flag: it must see (and can re-activate) hidden products.
    assert names(client.get("/api/products/", params=by_name, headers=admin_headers)) == everything
    assert names(client.get("/api/products/", params={"include_inactive": "true", **by_name}, headers=admin_headers)) == everything
    assert (
        names(client.get("/api/products/", params={"include_inactive": "false", **by_name}, headers=admin_headers))
        == VISIBLE_BY_NAME
    )
    assert names(client.get("/api/products/", params={"search": "hidden"}, headers=admin_headers)) == ["Gadget Hidden"]
    assert client.get("/api/products/", params={"include_inactive": "maybe"}, headers=admin_headers).status_code == 400


def test_product_json_shape(client, shop):
    body = client.get("/api/products/", params={"search": "apple"}).json()["results"][0]
    assert body["id"] == shop.apple.id and isinstance(body["id"], str)
    assert body["price"] == "10.00" and body["discount_price"] == "8.00"
    assert body["discount_percent"] == 20
    assert body["category"] == {"id": shop.groceries.id, "name": "Groceries", "slug": "groceries"}
    assert body["stock"] == 10 and isinstance(body["stock"], int)
    assert body["brand"] == "Shoprite" and body["rating"] == 4.5
    assert body["is_featured"] is True and body["is_available"] is True and body["status"] == "active"
    assert body["tags"] == [] and body["related_products"] == []
    expected = {
        "id",
        "name",
        "description",
        "brand",
        "image_url",
        "price",
        "discount_price",
        "discount_percent",
        "discount_start",
        "discount_end",
        "rating",
        "stock",
        "is_featured",
        "is_available",
        "status",
        "tags",
        "related_products",
        "category",
        "created_at",
        "updated_at",
    }
    assert expected <= set(body)
    no_discount = client.get("/api/products/", params={"search": "banana"}).json()["results"][0]
    assert no_discount["price"] == "25.00" and no_discount["discount_price"] is None


def test_featured_is_biggest_saving_first_and_visible_only(client, shop):
    for path in ("/api/products/featured", "/api/products/featured/"):
        response = client.get(path)
        assert response.status_code == 200
        assert [p["name"] for p in response.json()["data"]] == [
            "Earphones",
            "Drone Mini",
            "Apple Juice",
            "banana Chips",
        ]
    everything = client.get("/api/products/featured?limit=10").json()["data"]
    # Savings 25, 20, 2, then no saving (by name); the inactive featured product is left out.
    assert [p["name"] for p in everything] == [
        "Earphones",
        "Drone Mini",
        "Apple Juice",
        "banana Chips",
        "Feeding Bottle",
    ]
    assert everything[0]["price"] == "50.00" and everything[0]["category"]["slug"] == "electronics"
    for bad in ("0", "abc", "101"):
        assert client.get(f"/api/products/featured?limit={bad}").status_code == 400


def test_product_detail(client, shop, customer_headers, admin_headers):
    for path in (f"/api/products/{shop.drone.id}", f"/api/products/{shop.drone.id}/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json()["data"]["name"] == "Drone Mini"
        assert response.json()["data"]["price"] == "120.00"
    assert client.get("/api/products/no-such-id").status_code == 404
    assert client.get("/api/products/no-such-id").json() == {"detail": "Product not found."}
    for hidden in (shop.hidden, shop.unavailable):
        assert client.get(f"/api/products/{hidden.id}").status_code == 404
        assert client.get(f"/api/products/{hidden.id}", headers=customer_headers).status_code == 404
        assert client.get(f"/api/products/{hidden.id}", headers=admin_headers).status_code == 200


def test_an_invalid_token_on_a_public_listing_is_a_401(client, shop):
    response = client.get("/api/products/", headers={"Authorization": "Bearer not-a-token"})
    assert response.status_code == 401


def test_the_original_clients_featured_deals_come_from_page_one_of_the_demo_catalogue(client):
    """Issue 24: the React client picks "Featured Deals" (is_featured, first 4) from page 1 of
    GET /api/products/ without parameters; on a freshly seeded demo catalogue that page must hold them."""
    from discount_deals.db import session_scope
    from discount_deals.models import Product
    from discount_deals.services.demo_catalogue import FEATURED, seed_demo
    from sqlmodel import select

    with session_scope() as session:
        seed_demo(session)
    with session_scope() as session:
        created = [p.created_at for p in session.exec(select(Product)).all()]
    assert len(set(created)) == len(created)  # every demo product its own creation time
    page = client.get("/api/products/").json()["results"]
    featured = [p["name"] for p in page if p["is_featured"]]
    assert len(featured) >= 4 and set(featured) <= FEATURED
    assert [p["is_featured"] for p in page] == sorted((p["is_featured"] for p in page), reverse=True)


def test_a_plus_written_unencoded_in_the_address_still_names_100_and_over(client, shop):
    # "?price_range=100+" typed or shared as it is: the "+" arrives as a space (probe 77).
    response = client.get("/api/products/?price_range=100+&ordering=name")
    assert response.status_code == 200
    assert names(response) == ["Drone Mini"]
