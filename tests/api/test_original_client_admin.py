"""The original React client's admin screen, call by call (CLIENT-CONTRACT §2): after a create it
re-reads page 1 with no parameters and must find the product first; a product set inactive stays
in the admin's list (where it can be re-activated) and leaves the shoppers'."""

from __future__ import annotations

from discount_deals.db import session_scope
from discount_deals.models import Product


def form(category_id: str, **changes) -> dict:
    """What the client's product form sends (undefined optional keys dropped)."""
    return {
        "name": "Kelewele Spice Mix",
        "description": "Ginger, pepper and cloves",
        "price": "4.50",
        "image_url": "https://example.com/spice.jpg",
        "category": category_id,
        "tags": ["spice"],
        "status": "active",
        "is_available": True,
        "is_featured": False,
        "stock": 20,
        "related_products": [],
        **changes,
    }


def test_create_then_deactivate_as_the_client_does(client, admin_headers, make_category, make_product):
    groceries = make_category("Groceries")
    for n in range(15):  # more than one page, and all older than the new product
        make_product(f"Older {n:02d}", category=groceries)

    created = client.post("/api/products/", json=form(groceries.id), headers=admin_headers)
    assert created.status_code == 201
    product = created.json()["data"]
    page_one = client.get("/api/products/", params={"page_size": 10, "page": 1}, headers=admin_headers).json()
    assert page_one["results"][0]["id"] == product["id"] and page_one["count"] == 16

    # Edit: the form sends the whole object again, category as its name, status inactive.
    edited = client.put(
        f"/api/products/{product['id']}/", json=form("Groceries", status="inactive"), headers=admin_headers
    )
    assert edited.status_code == 200
    with session_scope() as session:
        assert session.get(Product, product["id"]).status == "inactive"
    admin_list = client.get("/api/products/", headers=admin_headers).json()
    assert admin_list["results"][0]["id"] == product["id"] and admin_list["results"][0]["status"] == "inactive"
    shopper_list = client.get("/api/products/").json()
    assert product["id"] not in [p["id"] for p in shopper_list["results"]] and shopper_list["count"] == 15
    assert client.get(f"/api/products/{product['id']}").status_code == 404

    # Re-activated from the admin's list.
    assert client.put(f"/api/products/{product['id']}/", json=form("Groceries"), headers=admin_headers).status_code == 200
    assert client.get("/api/products/").json()["results"][0]["id"] == product["id"]


def test_products_without_a_brand_say_null_so_the_client_brand_filter_works(client, make_product):
    make_product("No Brand Soap", brand="")
    make_product("Branded Soap", brand="melcom")
    brands = {p["name"]: p["brand"] for p in client.get("/api/products/").json()["results"]}
    assert brands == {"No Brand Soap": None, "Branded Soap": "melcom"}


def test_a_refused_bulk_upload_says_why_in_message(client, admin_headers, make_category):
    make_category("Groceries")
    rows = [{"name": "", "price": "x", "category": "groceries"}]
    response = client.post("/api/products/bulk-upload/", json={"products": rows}, headers=admin_headers)
    assert response.status_code == 400
    body = response.json()
    assert body["message"] == body["detail"] == "Upload completed: 0 created, 1 refused."
    assert body["created"] == [] and body["errors"][0]["index"] == 0
