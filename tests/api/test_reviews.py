"""Reviews from buyers (issue 34 item 1): only a customer who received a product reviews it, once
(a second POST edits); the product's rating becomes its published reviews' average, with their
count; admins hide and show reviews (audited); a review's text stays plain text everywhere."""

from __future__ import annotations

import json
import re
import threading

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import reviews as review_service

from ..builders.accounts import auth_headers
from ..builders.reviews import received, review_rows
from .test_first_html import build  # noqa: F401  (fixture: a production build's page shells)


def reviews_url(product_id: str) -> str:
    return f"/api/products/{product_id}/reviews/"


def buyer(make_user, product, first_name: str = "Ama", **fields) -> models.User:
    user = make_user(first_name=first_name, **fields)
    received(user, product)
    return user


def product_row(product_id: str) -> models.Product:
    with session_scope() as session:
        return session.get(models.Product, product_id)


def post(client, user, product, body) -> object:
    return client.post(reviews_url(product.id), json=body, headers=auth_headers(user))


# --- who may review ----------------------------------------------------------------------------


def test_a_buyer_reviews_a_delivered_product_and_everyone_reads_it(client, make_user, make_product):
    product = make_product(rating=3.0)
    ama = buyer(make_user, product, last_name="Mensah")
    answer = post(client, ama, product, {"rating": 5, "text": "  Fresh and cheap.  "})
    assert answer.status_code == 201, answer.text
    data = answer.json()["data"]
    assert (data["rating"], data["text"], data["reviewer"], data["verified_purchase"]) == (
        5, "Fresh and cheap.", "Ama", True)
    [row] = review_rows(product.id)
    assert (row.user_id, row.rating, row.text, row.is_hidden) == (ama.id, 5, "Fresh and cheap.", False)

    page = client.get(reviews_url(product.id)).json()
    assert (page["count"], page["rating"], page["review_count"], page["next"]) == (1, 5.0, 1, None)
    [shown] = page["results"]
    assert shown["reviewer"] == "Ama" and "Mensah" not in json.dumps(page) and ama.email not in json.dumps(page)
    assert shown["verified_purchase"] is True and shown["product"] == product.id


def test_the_legacy_completed_status_counts_as_received(client, make_user, make_product):
    product = make_product()
    user = make_user()
    received(user, product, models.OrderStatus.COMPLETED.value)
    assert post(client, user, product, {"rating": 4}).status_code == 201


@pytest.mark.parametrize("status", ["pending", "processing", "shipped", "cancelled"])
def test_an_order_not_received_is_403_not_a_buyer_and_writes_nothing(client, make_user, make_product, status):
    product = make_product(rating=2.0)
    user = make_user()
    received(user, product, status)
    answer = post(client, user, product, {"rating": 5, "text": "Great"})
    assert answer.status_code == 403
    assert answer.json() == {"detail": review_service.NOT_A_BUYER, "code": "not_a_buyer"}
    assert review_rows() == [] and product_row(product.id).rating == 2.0


def test_a_buyer_of_another_product_is_not_a_buyer_of_this_one(client, make_user, make_product):
    bought, other = make_product(), make_product()
    user = buyer(make_user, bought)
    assert post(client, user, other, {"rating": 5}).json()["code"] == "not_a_buyer"


def test_a_guest_is_401_and_an_unknown_or_hidden_product_404(client, make_user, make_product):
    product = make_product()
    assert client.post(reviews_url(product.id), json={"rating": 5}).status_code == 401
    user = buyer(make_user, product)
    assert client.post(reviews_url("nope"), json={"rating": 5}, headers=auth_headers(user)).status_code == 404
    hidden = make_product(status="inactive")
    received(user, hidden)
    assert post(client, user, hidden, {"rating": 5}).status_code == 404
    assert client.get(reviews_url("nope")).status_code == 404
    assert review_rows() == []


# --- one per customer, editable ------------------------------------------------------------------


def test_a_second_post_edits_the_review_with_200(client, make_user, make_product):
    product = make_product()
    user = buyer(make_user, product)
    first = post(client, user, product, {"rating": 2, "text": "Too salty"})
    second = post(client, user, product, {"rating": 4, "text": "Better the second time"})
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["data"]["id"] == first.json()["data"]["id"]
    [row] = review_rows(product.id)
    assert (row.rating, row.text) == (4, "Better the second time")
    assert product_row(product.id).rating == 4.0


def test_mine_says_whether_the_caller_may_review_and_answers_get_only(client, make_user, make_product):
    product = make_product()
    stranger, user = make_user(), buyer(make_user, product)
    mine = f"{reviews_url(product.id)}mine/"
    assert client.get(mine, headers=auth_headers(stranger)).json() == {"data": None, "can_review": False}
    assert client.get(mine, headers=auth_headers(user)).json() == {"data": None, "can_review": True}
    post(client, user, product, {"rating": 3, "text": "OK"})
    body = client.get(mine, headers=auth_headers(user)).json()
    assert body["can_review"] is True and (body["data"]["rating"], body["data"]["is_hidden"]) == (3, False)
    refused = client.put(mine, json={"rating": 5}, headers=auth_headers(user))
    assert refused.status_code == 405 and "GET" in refused.headers["allow"]
    assert client.get(mine).status_code == 401


def test_a_concurrent_double_post_makes_one_review(api_app, client, make_user, make_product):
    product = make_product()
    user = buyer(make_user, product)
    twins = 4
    start = threading.Barrier(twins)
    answers: list = [None] * twins

    def send(index: int) -> None:
        with TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False) as own:
            start.wait()
            answers[index] = own.post(reviews_url(product.id), json={"rating": 1 + index, "text": f"twin {index}"},
                                      headers=auth_headers(user))

    threads = [threading.Thread(target=send, args=(index,)) for index in range(twins)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] * (twins - 1) + [201], [a.text for a in answers]
    [row] = review_rows(product.id)
    assert product_row(product.id).review_count == 1 and product_row(product.id).rating == float(row.rating)


# --- input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rating": 0}, "rating"),
        ({"rating": 6}, "rating"),
        ({"rating": 4.5}, "rating"),
        ({"rating": True}, "rating"),
        ({"rating": "five"}, "rating"),
        # Digits of other scripts: "²" was a 500 (str.isdigit() takes it, int() does not), and
        # "٣" or "３" were read as 3 stars.
        ({"rating": "\u00b2"}, "rating"),
        ({"rating": "\u0663"}, "rating"),
        ({"rating": "\uff13"}, "rating"),
        ({"text": "No stars"}, "rating"),
        ({"rating": 4, "text": 12}, "text"),
        ({"rating": 4, "text": "x" * 2001}, "text"),
    ],
)
def test_bad_input_is_400_with_a_code_and_a_field_and_writes_nothing(client, make_user, make_product, body, field):
    product = make_product(rating=2.5)
    user = buyer(make_user, product)
    answer = post(client, user, product, body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "review_invalid" and field in answer.json()
    assert review_rows() == [] and product_row(product.id).rating == 2.5


def test_a_body_that_is_not_an_object_is_400(client, make_user, make_product):
    product = make_product()
    user = buyer(make_user, product)
    answer = client.post(reviews_url(product.id), content=b"[1, 2]", headers={**auth_headers(user),
                                                                            "content-type": "application/json"})
    assert answer.status_code == 400 and review_rows() == []


def test_text_is_stored_as_plain_text_without_control_characters(client, make_user, make_product):
    product = make_product()
    user = buyer(make_user, product)
    text = "<script>alert('x')</script>\r\nLine two\x00\x07\u200b " + "y" * 1900
    answer = post(client, user, product, {"rating": "5", "text": text})
    assert answer.status_code == 201, answer.text
    [row] = review_rows(product.id)
    assert row.text.startswith("<script>alert('x')</script>\nLine two y")
    assert "\x00" not in row.text and "\x07" not in row.text and "\u200b" not in row.text and "\r" not in row.text
    assert client.get(reviews_url(product.id)).json()["results"][0]["text"] == row.text


# --- the product's rating ------------------------------------------------------------------------


def test_the_rating_is_the_published_average_and_the_admins_number_returns_without_reviews(
    client, make_user, make_product, admin_headers
):
    product = make_product(rating=2.0)
    assert client.get(f"/api/products/{product.id}").json()["data"]["review_count"] == 0
    for stars, name in ((5, "Ama"), (4, "Kofi"), (4, "Esi")):
        assert post(client, buyer(make_user, product, name), product, {"rating": stars}).status_code == 201
    data = client.get(f"/api/products/{product.id}").json()["data"]
    assert (data["rating"], data["review_count"]) == (4.3, 3)  # 13 / 3 = 4.33
    listed = client.get("/api/products/").json()["results"][0]
    assert (listed["rating"], listed["review_count"]) == (4.3, 3)
    row = product_row(product.id)
    assert (row.rating, row.admin_rating, row.review_count) == (4.3, 2.0, 3)

    # The admin's number changes behind the reviews and comes back when every review is hidden.
    assert client.patch(f"/api/products/{product.id}/", json={"rating": 1.5}, headers=admin_headers).status_code == 200
    assert product_row(product.id).rating == 4.3
    for review in review_rows(product.id):
        assert client.post(f"/api/admin/reviews/{review.id}/hide/", headers=admin_headers).status_code == 200
    row = product_row(product.id)
    assert (row.rating, row.review_count, row.admin_rating) == (1.5, 0, 1.5)
    assert client.get(f"/api/products/{product.id}").json()["data"]["rating"] == 1.5


def test_half_a_tenth_rounds_up(client, make_user, make_product):
    product = make_product()
    for stars in (5, 5, 4, 3):  # 4.25
        post(client, buyer(make_user, product), product, {"rating": stars})
    assert product_row(product.id).rating == 4.3


def test_sort_by_rating_uses_the_reviews_average(client, make_user, make_product, make_category):
    category = make_category()
    admired = make_product("Admired", rating=4.9, category=category)
    reviewed = make_product("Reviewed", rating=1.0, category=category)
    post(client, buyer(make_user, reviewed), reviewed, {"rating": 5})
    post(client, buyer(make_user, admired), admired, {"rating": 2})
    names = [p["name"] for p in client.get(f"/api/products/?ordering=rating&category={category.id}").json()["results"]]
    assert names == ["Reviewed", "Admired"]


def test_the_admin_form_and_export_keep_the_admins_number(client, make_user, make_product, admin_headers):
    from discount_deals.state.admin.product_form import form_values

    product = make_product(rating=3.5)
    post(client, buyer(make_user, product), product, {"rating": 5})
    assert product_row(product.id).rating == 5.0
    assert form_values(product_row(product.id)).rating == "3.5"
    exported = client.get("/api/admin/exports/products.csv", headers=admin_headers)
    assert exported.status_code == 200 and ",3.5," in exported.text and ",5," not in exported.text


def test_the_original_clients_edit_form_sending_the_average_back_keeps_the_admins_number(
        client, make_user, make_product, admin_headers):
    """The React client's product form PUTs back every field it read, ``rating`` (the reviews'
    average) too: that is no new number from the admin."""
    product = make_product(rating=3.5)
    post(client, buyer(make_user, product), product, {"rating": 5})
    read = client.get(f"/api/products/{product.id}").json()["data"]
    response = client.patch(f"/api/products/{product.id}/", json={"name": read["name"], "rating": read["rating"]},
                            headers=admin_headers)
    assert response.status_code == 200, response.text
    row = product_row(product.id)
    assert (row.rating, row.admin_rating) == (5.0, 3.5)


# --- the back office -----------------------------------------------------------------------------


def test_hide_and_show_are_audited_and_recompute_the_rating(client, make_user, make_product, admin, admin_headers):
    product = make_product(rating=1.0)
    post(client, buyer(make_user, product, "Ama"), product, {"rating": 5, "text": "Lovely"})
    post(client, buyer(make_user, product, "Kofi"), product, {"rating": 3, "text": "Rude words"})
    rude = next(r for r in review_rows(product.id) if r.rating == 3)
    assert product_row(product.id).rating == 4.0

    hidden = client.post(f"/api/admin/reviews/{rude.id}/hide/", headers=admin_headers)
    assert hidden.status_code == 200 and hidden.json()["data"]["is_hidden"] is True
    assert (product_row(product.id).rating, product_row(product.id).review_count) == (5.0, 1)
    page = client.get(reviews_url(product.id)).json()
    assert [r["text"] for r in page["results"]] == ["Lovely"]
    assert client.post(f"/api/admin/reviews/{rude.id}/hide/", headers=admin_headers).status_code == 200

    listed = client.get("/api/admin/reviews/?hidden=true", headers=admin_headers).json()
    assert [r["id"] for r in listed["results"]] == [rude.id] and listed["results"][0]["product_name"] == product.name
    assert client.get("/api/admin/reviews/?hidden=false", headers=admin_headers).json()["count"] == 1
    assert client.get("/api/admin/reviews/", headers=admin_headers).json()["count"] == 2
    assert client.get("/api/admin/reviews/?hidden=maybe", headers=admin_headers).status_code == 400

    assert client.post(f"/api/admin/reviews/{rude.id}/show/", headers=admin_headers).status_code == 200
    assert (product_row(product.id).rating, product_row(product.id).review_count) == (4.0, 2)
    with session_scope() as session:
        events = session.exec(select(models.AuditEvent).where(models.AuditEvent.target_type == "review")
                              .order_by(models.AuditEvent.created_at)).all()
        assert [(e.action, e.target_id, e.actor_id, e.changes) for e in events] == [
            ("review.hide", rude.id, admin.id, {"is_hidden": [False, True]}),
            ("review.show", rude.id, admin.id, {"is_hidden": [True, False]}),
        ]


def test_an_edit_keeps_a_hidden_review_hidden(client, make_user, make_product, admin_headers):
    product = make_product(rating=2.0)
    user = buyer(make_user, product)
    review_id = post(client, user, product, {"rating": 1, "text": "Bad"}).json()["data"]["id"]
    client.post(f"/api/admin/reviews/{review_id}/hide/", headers=admin_headers)
    assert post(client, user, product, {"rating": 2, "text": "Still bad"}).json()["data"]["is_hidden"] is True
    assert product_row(product.id).rating == 2.0 and client.get(reviews_url(product.id)).json()["count"] == 0


def test_the_back_office_reviews_are_admins_only(client, make_user, make_product, customer_headers, admin_headers):
    assert client.get("/api/admin/reviews/").status_code == 401
    assert client.get("/api/admin/reviews/", headers=customer_headers).status_code == 403
    assert client.post("/api/admin/reviews/nope/hide/", headers=customer_headers).status_code == 403
    assert client.post("/api/admin/reviews/nope/hide/", headers=admin_headers).status_code == 404


# --- paging and the first HTML -------------------------------------------------------------------


def test_reviews_page_newest_first(client, make_user, make_product):
    product = make_product()
    for index in range(12):
        post(client, buyer(make_user, product, f"Buyer{index:02d}"), product, {"rating": 4})
    first = client.get(reviews_url(product.id)).json()
    assert first["count"] == 12 and len(first["results"]) == 10 and first["next"]
    assert first["results"][0]["reviewer"] == "Buyer11"
    second = client.get(first["next"].replace("http://testserver", "")).json()
    assert [r["reviewer"] for r in second["results"]] == ["Buyer01", "Buyer00"]


def _json_ld(html: str) -> list[dict]:
    blocks = re.findall(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', html, re.S)
    return [json.loads(block) for block in blocks]


def _product_ld(html: str) -> dict:
    for block in _json_ld(html):
        for item in block if isinstance(block, list) else [block]:
            if item.get("@type") == "Product":
                return item
    raise AssertionError("no Product JSON-LD")


@pytest.mark.usefixtures("build")
def test_the_first_html_has_aggregate_rating_only_with_reviews_and_escapes_review_text(
    client, make_user, make_product
):
    product = make_product("Kenkey", rating=4.0)
    html = client.get(f"/products/{product.id}").text
    assert "aggregateRating" not in _product_ld(html)
    post(client, buyer(make_user, product), product, {"rating": 3, "text": "<script>alert(1)</script> tasty"})
    post(client, buyer(make_user, product), product, {"rating": 4})
    html = client.get(f"/products/{product.id}").text
    assert _product_ld(html)["aggregateRating"] == {"@type": "AggregateRating", "ratingValue": 3.5, "reviewCount": 2}
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; tasty" in html


def test_a_customers_data_export_holds_their_reviews(client, make_user, make_product):
    product = make_product("Shito")
    user = buyer(make_user, product)
    post(client, user, product, {"rating": 4, "text": "Hot!"})
    exported = client.get("/api/users/me/export/", headers=auth_headers(user)).json()
    assert [(r["product_id"], r["name"], r["rating"], r["text"], r["hidden"]) for r in exported["reviews"]] == [
        (product.id, "Shito", 4, "Hot!", False)]
