"""Issue 13 item 8: a bulk upload retried with the same Idempotency-Key (the client lost the
connection after the server committed) gets the first answer, and nothing is imported twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from sqlmodel import func, select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import auth_headers


def _count(model) -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(model)).one()


def _products(category: models.Category, *names: str) -> dict:
    return {
        "products": [
            {"name": name, "description": "d", "price": "2.50", "category": category.id, "image_url": ""}
            for name in names
        ]
    }


def test_a_retried_product_upload_gets_the_first_answer(client, admin, make_category):
    groceries = make_category("Groceries")
    headers = {**auth_headers(admin), "Idempotency-Key": "upload-2026-11-23-a"}
    body = _products(groceries, "Rice 5kg", "Beans 1kg")
    first = client.post("/api/products/bulk-upload/", json=body, headers=headers)
    assert first.status_code == 201 and len(first.json()["created"]) == 2
    retry = client.post("/api/products/bulk-upload/", json=body, headers=headers)
    assert retry.status_code == 201
    assert retry.json() == first.json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert _count(models.Product) == 2
    # Without the key, the same rows are refused as existing (the behaviour the key avoids).
    again = client.post("/api/products/bulk-upload/", json=body, headers=auth_headers(admin))
    assert again.status_code == 400 and len(again.json()["errors"]) == 2


def test_a_retried_csv_upload_is_recognised_although_its_multipart_boundary_changed(client, admin, make_category):
    make_category("Groceries")
    csv = b"name,description,price,category,image_url\nSugar,Sweet,1.20,Groceries,\n"
    headers = {**auth_headers(admin), "Idempotency-Key": "csv-1"}
    first = client.post("/api/products/bulk-upload/", files={"file": ("p.csv", csv)}, headers=headers)
    retry = client.post("/api/products/bulk-upload/", files={"file": ("p.csv", csv)}, headers=headers)
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert _count(models.Product) == 1


def test_the_same_key_with_another_upload_is_409_and_keys_are_per_user(client, admin, make_user, make_category):
    groceries = make_category("Groceries")
    headers = {**auth_headers(admin), "Idempotency-Key": "k1"}
    assert client.post("/api/products/bulk-upload/", json=_products(groceries, "A"), headers=headers).status_code == 201
    other = client.post("/api/products/bulk-upload/", json=_products(groceries, "B"), headers=headers)
    assert other.status_code == 409
    assert other.json()["detail"] == "This Idempotency-Key was already used for a different request."
    second_admin = make_user(role="admin")
    mine = client.post(
        "/api/products/bulk-upload/",
        json=_products(groceries, "B"),
        headers={**auth_headers(second_admin), "Idempotency-Key": "k1"},
    )
    assert mine.status_code == 201
    assert _count(models.Product) == 2


def test_a_retried_category_upload_gets_the_first_answer(client, admin):
    headers = {**auth_headers(admin), "Idempotency-Key": "cats-1"}
    body = {"categories": [{"name": "Drinks", "slug": "drinks", "description": "Cold ones"}]}
    first = client.post("/api/category/bulk-upload/", json=body, headers=headers)
    retry = client.post("/api/category/bulk-upload/", json=body, headers=headers)
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert _count(models.Category) == 1


@pytest.mark.parametrize("key", ["", "has space", "tab\tkey", "x" * 256])
def test_unusable_keys_are_400(client, admin, key):
    headers = {**auth_headers(admin), "Idempotency-Key": key}
    answer = client.post("/api/category/bulk-upload/", json={"categories": []}, headers=headers)
    assert answer.status_code == 400


def test_twins_sent_at_once_import_once(api_app, admin, make_category):
    groceries = make_category("Groceries")
    headers = {**auth_headers(admin), "Idempotency-Key": "twins"}
    body = _products(groceries, *(f"Item {n}" for n in range(50)))

    def send(_):
        with TestClient(api_app) as client:
            return client.post("/api/products/bulk-upload/", json=body, headers=headers)

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(send, range(4)))
    assert [a.status_code for a in answers] == [201] * 4
    assert all(a.json() == answers[0].json() for a in answers)
    assert _count(models.Product) == 50
