"""The audit trail (issue 16): every admin write records who, what, when and before/after, in the
same transaction; GET /api/admin/audit/ is an admin-only, read-only DRF page, newest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import audit, coupons
from discount_deals.services.orders import expiry

from ..builders.accounts import auth_headers
from ..builders.checkout import MOMO, fill_cart, place
from ..builders.payments import minor, post_webhook
from ..builders.shop import add_address
from ..support.faults import refused_inserts

AUDIT = "/api/admin/audit/"


def events(**where) -> list[models.AuditEvent]:
    with session_scope() as session:
        query = select(models.AuditEvent).order_by(models.AuditEvent.created_at, models.AuditEvent.id)
        for field, value in where.items():
            query = query.where(getattr(models.AuditEvent, field) == value)
        return list(session.exec(query).all())


def only(action: str) -> models.AuditEvent:
    found = events(action=action)
    assert len(found) == 1, [e.action for e in events()]
    return found[0]


def assert_by(event: models.AuditEvent, admin: models.User) -> None:
    assert event.actor_id == admin.id and event.actor_label == admin.email
    assert event.created_at >= datetime.now(UTC) - timedelta(minutes=1)


@pytest.fixture
def groceries(make_category):
    return make_category("Groceries")


# --- products ----------------------------------------------------------------------------------


def test_product_create_update_restock_delete_are_recorded(client, admin, admin_headers, groceries):
    created = client.post("/api/products/", headers=admin_headers, json={
        "name": "Audit Rice", "price": "12.50", "discount_price": "9.99", "category": groceries.id, "stock": 4})
    assert created.status_code == 201, created.text
    product_id = created.json()["data"]["id"]
    event = only("product.create")
    assert_by(event, admin)
    assert (event.target_type, event.target_id, event.target_label) == ("product", product_id, "Audit Rice")
    assert event.changes["name"] == [None, "Audit Rice"]
    assert event.changes["price"] == [None, "12.50"] and event.changes["discount_price"] == [None, "9.99"]
    assert event.changes["stock"] == [None, 4] and event.changes["category_id"] == [None, groceries.id]

    patched = client.patch(f"/api/products/{product_id}/", headers=admin_headers,
                           json={"price": "14.00", "stock": 4, "name": "Audit Rice"})
    assert patched.status_code == 200
    event = only("product.update")
    assert_by(event, admin)
    assert event.changes == {"price": ["12.50", "14.00"]}  # unchanged fields are left out

    # A write that changes nothing records nothing.
    client.patch(f"/api/products/{product_id}/", headers=admin_headers, json={"stock": 4})
    assert len(events(action="product.update")) == 1

    restocked = client.post(f"/api/products/{product_id}/restock/", headers=admin_headers, json={"quantity": 20})
    assert restocked.status_code == 200 and restocked.json()["data"]["stock"] == 24
    event = only("product.restock")
    assert_by(event, admin)
    assert event.changes == {"stock": [4, 24]}

    assert client.delete(f"/api/products/{product_id}", headers=admin_headers).status_code == 204
    event = only("product.delete")
    assert_by(event, admin)
    assert event.target_label == "Audit Rice"
    assert event.changes["name"] == ["Audit Rice", None] and event.changes["price"] == ["14.00", None]


def test_a_refused_write_records_nothing(client, admin_headers, make_product):
    product = make_product("Kept", stock=2)
    bad = client.patch(f"/api/products/{product.id}/", headers=admin_headers, json={"price": "-1"})
    assert bad.status_code == 400
    bad_restock = client.post(f"/api/products/{product.id}/restock/", headers=admin_headers, json={"quantity": 0})
    assert bad_restock.status_code == 400
    assert events() == []


def test_each_bulk_upload_is_one_event_with_its_counts(client, admin, admin_headers, groceries):
    rows = [{"name": f"Bulk {n}", "price": "1.00", "category": "groceries"} for n in range(5)]
    rows.append({"name": "Bulk 0", "price": "1.00", "category": "groceries"})  # a duplicate: refused
    response = client.post("/api/products/bulk-upload/", headers=admin_headers, json={"products": rows})
    assert response.status_code == 201
    event = only("product.bulk_upload")
    assert_by(event, admin)
    assert (event.target_type, event.target_id) == ("product", None)
    assert event.changes == {"created": [None, 5], "refused": [None, 1], "rows": [None, 6]}
    assert events(action="product.create") == []  # not one event per row

    categories = client.post("/api/category/bulk-upload/", headers=admin_headers, json={"categories": [
        {"name": "Toys", "slug": "toys", "description": "Toys"}, {"name": "Pets", "slug": "pets", "description": "P"}]})
    assert categories.status_code == 201
    assert only("category.bulk_upload").changes == {"created": [None, 2], "refused": [None, 0], "rows": [None, 2]}


# --- categories ----------------------------------------------------------------------------------


def test_category_create_update_delete_are_recorded(client, admin, admin_headers, make_product):
    created = client.post("/api/category/", headers=admin_headers, json={"id": "", "name": "Frozen", "slug": "frozen"})
    assert created.status_code == 201
    category_id = created.json()["id"]
    event = only("category.create")
    assert_by(event, admin)
    assert event.changes["name"] == [None, "Frozen"] and event.changes["slug"] == [None, "frozen"]

    updated = client.patch(f"/api/category/{category_id}/", headers=admin_headers,
                           json={"name": "Frozen Food", "description": "Cold"})
    assert updated.status_code == 200, updated.text
    assert updated.json()["slug"] == "frozen"
    event = only("category.update")
    assert event.changes == {"name": ["Frozen", "Frozen Food"], "description": ["", "Cold"]}

    with session_scope() as session:
        category = session.get(models.Category, category_id)
    product = make_product(category=category)
    in_use = client.delete(f"/api/category/{category_id}/", headers=admin_headers)
    assert in_use.status_code == 409
    assert events(action="category.delete") == []
    client.delete(f"/api/products/{product.id}", headers=admin_headers)
    assert client.delete(f"/api/category/{category_id}/", headers=admin_headers).status_code == 204
    event = only("category.delete")
    assert_by(event, admin)
    assert event.changes["name"] == ["Frozen Food", None]


def test_category_update_refuses_duplicates_and_cycles(client, admin_headers, make_category):
    parent, child = make_category("Parent"), make_category("Child")
    assert client.patch(f"/api/category/{child.id}/", headers=admin_headers, json={"parent": parent.id}).status_code == 200
    cycle = client.patch(f"/api/category/{parent.id}/", headers=admin_headers, json={"parent": child.id})
    assert cycle.status_code == 400 and "parent" in cycle.json()
    taken = client.patch(f"/api/category/{child.id}/", headers=admin_headers, json={"name": "parent"})
    assert taken.status_code == 400
    assert client.patch("/api/category/nope/", headers=admin_headers, json={"name": "x"}).status_code == 404


# --- users ---------------------------------------------------------------------------------------


def test_role_changes_deactivation_and_admin_edits_are_recorded(client, admin, admin_headers, make_user):
    target = make_user()
    response = client.patch(f"/api/users/admin/users/{target.id}/", headers=admin_headers, json={"role": "manager"})
    assert response.status_code == 200 and response.json()["role"] == "manager"
    event = only("user.role")
    assert_by(event, admin)
    assert (event.target_id, event.target_label, event.changes) == (target.id, target.email,
                                                                     {"role": ["customer", "manager"]})

    off = client.patch(f"/api/users/admin/users/{target.id}/", headers=admin_headers, json={"is_active": False})
    assert off.status_code == 200 and off.json()["is_active"] is False
    assert only("user.deactivate").changes == {"is_active": [True, False]}
    # A deactivated account cannot use its tokens or log in.
    assert client.get("/api/users/me/", headers=auth_headers(target)).status_code == 401
    login = client.post("/api/auth/token/", json={"email": target.email, "password": "secret123"})
    assert login.status_code in (400, 401)
    on = client.patch(f"/api/users/admin/users/{target.id}/", headers=admin_headers, json={"is_active": True})
    assert on.json()["is_active"] is True
    assert only("user.activate").changes == {"is_active": [False, True]}

    edited = client.patch(f"/api/users/users/{target.id}/", headers=admin_headers,
                          json={"first_name": "Kofi", "password": "another-secret", "current_password": "secret123"})
    assert edited.status_code == 200, edited.text
    event = only("user.update")
    assert event.changes["first_name"][1] == "Kofi"
    assert event.changes["password"] == ["(hidden)", "(changed)"]
    assert "another-secret" not in str(event.changes)


def test_admins_cannot_deactivate_themselves_and_nothing_is_recorded(client, admin, admin_headers):
    response = client.patch(f"/api/users/admin/users/{admin.id}/", headers=admin_headers, json={"is_active": False})
    assert response.status_code == 400
    assert client.patch(f"/api/users/admin/users/{admin.id}/", headers=admin_headers, json={}).status_code == 400
    assert events() == []


def test_customers_own_profile_edits_are_not_admin_events(client, customer, customer_headers):
    client.patch(f"/api/users/users/{customer.id}/", headers=customer_headers, json={"first_name": "Ama"})
    assert events() == []


# --- orders ----------------------------------------------------------------------------------------


def test_order_status_changes_and_refunds_are_recorded(client, admin, admin_headers, make_user, make_product):
    shopper = make_user()
    add_address(shopper, is_default=True)
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(stock=5), 1))
    order = place(client, headers)
    moved = client.patch(f"/api/orders/{order['id']}/", json={"status": "processing"}, headers=admin_headers)
    assert moved.status_code == 200, moved.text
    event = only("order.status")
    assert_by(event, admin)
    assert (event.target_type, event.target_id) == ("order", order["id"])
    assert event.target_label == f"Order #{order['id'][:8]}"
    assert event.changes == {"status": ["pending", "processing"]}

    # A paid order cancelled by its customer, then refunded by an admin.
    fill_cart(client, headers, (make_product(stock=5), 1))
    paid = place(client, headers, MOMO)
    post_webhook(client, "charge.success", paid["payment_reference"], minor(paid["total"]))
    client.post(f"/api/orders/{paid['id']}/cancel/", headers=headers)
    cancel = events(action="order.status", target_id=paid["id"])
    assert [(e.actor_id, e.changes) for e in cancel] == [(shopper.id, {"status": ["pending", "cancelled"]})]
    refunded = client.post(f"/api/admin/orders/{paid['id']}/refunded/", headers=admin_headers)
    assert refunded.status_code == 200, refunded.text
    event = only("order.refund")
    assert_by(event, admin)
    assert event.changes == {"payment_status": ["paid", "refunded"], "refunded_total": ["0.00", paid["total"]],
                             "credit_note_number": [None, f"CN-{datetime.now(UTC).year}-000001"]}


def test_the_shops_own_timer_is_named_as_the_actor(client, make_user, make_product):
    shopper = make_user()
    add_address(shopper, is_default=True)
    headers = auth_headers(shopper)
    fill_cart(client, headers, (make_product(stock=5), 1))
    order = place(client, headers, MOMO)
    with session_scope() as session:
        due = session.get(models.Order, order["id"]).payment_due_at
    assert expiry.release_expired_payments(now=due + timedelta(seconds=1)) == 1
    event = only("order.status")
    assert (event.actor_id, event.actor_label) == (None, "Discount Deals")


# --- coupons and pickup stores (the shop's settings) ---------------------------------------------


def test_coupon_and_pickup_store_changes_are_recorded(client, admin, admin_headers):
    created = client.post("/api/admin/coupons/", headers=admin_headers,
                          json={"code": "save5", "kind": "fixed", "value": "5", "usage_limit": 3})
    assert created.status_code == 201, created.text
    coupon_id = created.json()["id"]
    event = only("coupon.create")
    assert_by(event, admin)
    assert event.changes["code"] == [None, "SAVE5"] and event.changes["usage_limit"] == [None, 3]
    client.post(f"/api/admin/coupons/{coupon_id}/deactivate/", headers=admin_headers)
    assert only("coupon.deactivate").changes == {"active": [True, False]}
    client.patch(f"/api/admin/coupons/{coupon_id}/", headers=admin_headers, json={"usage_limit": 10})
    assert only("coupon.update").changes == {"usage_limit": [3, 10]}

    store = client.post("/api/pickup-stores/", headers=admin_headers,
                        json={"name": "Game Accra", "address": "Accra Mall", "city": "Accra"}).json()
    assert only("pickup_store.create").changes["name"] == [None, "Game Accra"]
    client.patch(f"/api/pickup-stores/{store['id']}/", headers=admin_headers, json={"is_active": False})
    assert only("pickup_store.update").changes == {"is_active": [True, False]}
    client.delete(f"/api/pickup-stores/{store['id']}/", headers=admin_headers)
    assert only("pickup_store.delete").changes["name"] == ["Game Accra", None]


def test_the_command_line_is_named_as_the_actor(session):
    coupons.create_coupon(session, "CLI10", percent="10")
    session.flush()
    event = session.exec(select(models.AuditEvent)).one()
    assert (event.actor_id, event.actor_label, event.action) == (None, "command line", "coupon.create")


# --- one transaction -------------------------------------------------------------------------------


@pytest.fixture
def audit_refused():
    """A database that refuses audit events (a trigger), to prove a change never outlives its event."""
    with refused_inserts("audit_event", "audit_refused", "audit refused"):
        yield


def test_no_change_without_its_event(client, admin_headers, make_product, make_user, audit_refused):
    product = make_product("Unchanged", price="10.00", stock=3)
    target = make_user()
    refused = [
        client.patch(f"/api/products/{product.id}/", headers=admin_headers, json={"price": "1.00"}),
        client.post("/api/products/", headers=admin_headers,
                    json={"name": "Never", "price": "1", "category": product.category_id}),
        client.patch(f"/api/users/admin/users/{target.id}/", headers=admin_headers, json={"role": "admin"}),
    ]
    assert all(response.status_code >= 400 for response in refused)
    with session_scope() as session:
        assert str(session.get(models.Product, product.id).price) == "10.00"
        assert session.exec(select(models.Product).where(models.Product.name == "Never")).first() is None
        assert session.get(models.User, target.id).role == "customer"


# --- the API -------------------------------------------------------------------------------------


def test_the_trail_is_for_admins_only_and_never_editable(client, admin_headers, customer_headers):
    client.post("/api/admin/coupons/", headers=admin_headers, json={"code": "X1", "kind": "percent", "value": "5"})
    assert client.get(AUDIT).status_code == 401
    assert client.get(AUDIT, headers=customer_headers).status_code == 403
    page = client.get(AUDIT, headers=admin_headers)
    assert page.status_code == 200
    event = page.json()["results"][0]
    path = f"{AUDIT}{event['id']}/"
    assert client.get(path, headers=admin_headers).json() == event
    assert client.get(path, headers=customer_headers).status_code == 403
    for method in ("PUT", "PATCH", "DELETE"):
        assert client.request(method, path, headers=admin_headers, json={"action": "x"}).status_code == 405
    assert client.post(AUDIT, headers=admin_headers, json={}).status_code == 405
    assert client.get(f"{AUDIT}nope/", headers=admin_headers).status_code == 404


def _seed_events(admin: models.User, other: models.User) -> None:
    base = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with session_scope() as session:
        for n in range(12):
            actor = admin if n % 2 == 0 else other
            event = audit.record(session, actor, "product.update" if n % 3 else "coupon.create",
                                 "product" if n % 3 else "coupon", f"target-{n % 4}",
                                 changes={"n": [n, n + 1]}, label=f"Thing {n}")
            event.created_at = base + timedelta(days=n)
            session.add(event)


def test_the_page_is_newest_first_and_filters(client, admin, admin_headers, make_user):
    other = make_user(role="admin")
    _seed_events(admin, other)
    body = client.get(AUDIT, headers=admin_headers, params={"page_size": 5}).json()
    assert body["count"] == 12 and body["total_pages"] == 3
    assert body["next"].startswith("http://testserver/api/admin/audit/?") and body["previous"] is None
    days = [row["created_at"][:10] for row in body["results"]]
    assert days == ["2026-03-12", "2026-03-11", "2026-03-10", "2026-03-09", "2026-03-08"]
    row = body["results"][0]
    assert set(row) >= {"actor", "actor_label", "action", "target_type", "target_id", "changes", "created_at"}
    assert row["changes"] == {"n": [11, 12]} and row["actor"] == other.id

    def names(**params) -> list[str]:
        return [r["target_label"] for r in client.get(AUDIT, headers=admin_headers, params=params).json()["results"]]

    assert names(actor=admin.id) == [f"Thing {n}" for n in (10, 8, 6, 4, 2, 0)]
    assert names(actor=other.email.upper()) == [f"Thing {n}" for n in (11, 9, 7, 5, 3, 1)]
    assert names(action="coupon.create") == [f"Thing {n}" for n in (9, 6, 3, 0)]
    assert names(target_type="coupon", target_id="target-1") == ["Thing 9"]
    assert names(date_from="2026-03-03", date_to="2026-03-05") == ["Thing 4", "Thing 3", "Thing 2"]
    assert names(date_from="2026-03-11T12:00:00Z") == ["Thing 11", "Thing 10"]
    assert names(date_to="2026-03-02") == ["Thing 1", "Thing 0"]
    assert client.get(AUDIT, headers=admin_headers, params={"date_from": "March"}).status_code == 400
    assert client.get(AUDIT, headers=admin_headers,
                      params={"date_from": "2026-03-05", "date_to": "2026-03-01"}).status_code == 400
    assert client.get(AUDIT, headers=admin_headers, params={"action": "x' or 1=1"}).status_code == 400
