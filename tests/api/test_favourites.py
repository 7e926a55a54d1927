"""Favourites over HTTP: list, add once, remove, owners."""

from __future__ import annotations

from discount_deals import models

from ..builders.accounts import auth_headers
from ..builders.rows import count_rows

FAVOURITES = "/api/favorites/"


def test_favourites_need_a_login(client, make_product):
    product = make_product()
    assert client.get(FAVOURITES).status_code == 401
    assert client.post(FAVOURITES, json={"product": product.id}).status_code == 401
    assert client.delete(f"{FAVOURITES}{product.id}/").status_code == 401


def test_add_list_and_remove(client, customer_headers, make_product):
    kettle = make_product(name="Kettle", price="30.00", discount_price="21.00")
    iron = make_product(name="Iron")
    added = client.post(FAVOURITES, json={"product": kettle.id}, headers=customer_headers)
    assert added.status_code == 201
    entry = added.json()
    assert set(entry) == {"id", "product", "added_at"}
    assert entry["product"]["id"] == kettle.id
    assert entry["product"]["discount_price"] == "21.00"
    assert entry["product"]["category"]["id"] == kettle.category_id
    assert client.post("/api/favorites", json={"product": iron.id}, headers=customer_headers).status_code == 201

    page = client.get(FAVOURITES, headers=customer_headers).json()
    assert page["count"] == 2
    assert [e["product"]["name"] for e in page["results"]] == ["Iron", "Kettle"]  # newest first
    assert page["results"][1] == entry

    assert client.delete(f"{FAVOURITES}{kettle.id}/", headers=customer_headers).status_code == 204
    assert [e["product"]["id"] for e in client.get(FAVOURITES, headers=customer_headers).json()["results"]] == [iron.id]
    assert client.delete(f"{FAVOURITES}{kettle.id}", headers=customer_headers).status_code == 404


def test_adding_a_present_product_changes_nothing(client, customer_headers, make_product):
    product = make_product()
    first = client.post(FAVOURITES, json={"product": product.id}, headers=customer_headers)
    second = client.post(FAVOURITES, json={"product": product.id}, headers=customer_headers)
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json() == first.json()
    assert count_rows(models.Favourite) == 1


def test_unknown_or_hidden_products_are_not_found(client, customer_headers, make_product):
    hidden = make_product(status="inactive")
    for product_id in ("no-such-product", hidden.id):
        assert client.post(FAVOURITES, json={"product": product_id}, headers=customer_headers).status_code == 404
    assert client.post(FAVOURITES, json={}, headers=customer_headers).status_code == 400
    assert count_rows(models.Favourite) == 0


def test_favourites_are_per_user(client, make_user, make_product):
    alice, bob = auth_headers(make_user()), auth_headers(make_user())
    product = make_product()
    client.post(FAVOURITES, json={"product": product.id}, headers=alice)
    assert client.get(FAVOURITES, headers=bob).json()["count"] == 0
    assert client.delete(f"{FAVOURITES}{product.id}/", headers=bob).status_code == 404
    assert client.get(FAVOURITES, headers=alice).json()["count"] == 1


def test_a_favourite_is_removed_by_the_id_adding_it_answered(client, make_user, make_product):
    """CLIENT-CONTRACT §7: ``DELETE /favorites/{id}``. The id POST answered named nothing (only
    the product's id did); both name it now, and only for its owner."""
    alice, bob = auth_headers(make_user()), auth_headers(make_user())
    product = make_product()
    added = client.post(FAVOURITES, json={"product": product.id}, headers=alice).json()
    assert added["id"] != product.id
    assert client.delete(f"{FAVOURITES}{added['id']}/", headers=bob).status_code == 404
    assert count_rows(models.Favourite) == 1
    assert client.delete(f"{FAVOURITES}{added['id']}", headers=alice).status_code == 204
    assert count_rows(models.Favourite) == 0
    assert client.delete(f"{FAVOURITES}{added['id']}/", headers=alice).status_code == 404


def test_a_product_hidden_after_it_was_saved_is_not_listed_until_shown_again(client, customer_headers, make_product,
                                                                            admin_headers):
    """The list counted and showed a product an admin had hidden (status inactive), which the
    storefront's own favourites page leaves out: the original client showed a card nobody may buy."""
    kettle, iron = make_product(name="Kettle"), make_product(name="Iron")
    for product in (kettle, iron):
        client.post(FAVOURITES, json={"product": product.id}, headers=customer_headers)
    hide = client.patch(f"/api/products/{kettle.id}/", json={"status": "inactive"}, headers=admin_headers)
    assert hide.status_code == 200
    page = client.get(FAVOURITES, headers=customer_headers).json()
    assert (page["count"], [e["product"]["id"] for e in page["results"]]) == (1, [iron.id])
    assert count_rows(models.Favourite) == 2  # kept, not listed
    client.patch(f"/api/products/{kettle.id}/", json={"status": "active"}, headers=admin_headers)
    assert client.get(FAVOURITES, headers=customer_headers).json()["count"] == 2
