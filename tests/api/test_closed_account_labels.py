"""A closed account is no longer named by its email in its orders' timelines nor in the audit trail
(probe 65): closing blanked the account but left the email on the admin order page ("By ...") and
in the Activity screen, as the actor of the customer's own steps and as the label of the events
about them."""

from __future__ import annotations

import json

from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.accounts import PASSWORD, auth_headers
from ..builders.checkout import events, fill_cart, place
from ..builders.returns import ask_return, momo_order, step

CLOSED = "Closed account"


def test_closing_replaces_the_email_in_timelines_and_the_audit_trail(client, admin, admin_headers, make_user,
                                                                      make_product):
    user = make_user(email="zebq@example.com", first_name="Zebulonx", last_name="Quartzmann")
    headers = auth_headers(user)
    product = make_product(price="20.00", stock=10)
    delivered = momo_order(client, user, admin_headers, (product, 1))
    ret = ask_return(client, user, delivered["id"], [(product.id, 1)])  # audited, by the customer
    step(client, admin_headers, ret["id"], "reject", note="Opened")
    fill_cart(client, headers, (product, 1))
    cancelled = place(client, headers)
    assert client.post(f"/api/orders/{cancelled['id']}/cancel/", headers=headers).status_code == 200
    assert client.patch(f"/api/users/admin/users/{user.id}/", json={"role": "seller"},
                        headers=admin_headers).status_code == 200
    assert client.patch(f"/api/users/users/{user.id}/", json={"first_name": "Zebulona"},
                        headers=admin_headers).status_code == 200

    assert client.post("/api/users/me/close/", json={"password": PASSWORD}, headers=headers).status_code == 204

    mine = [e for e in events(cancelled["id"]) + events(delivered["id"]) if e.actor_id == user.id]
    assert mine and {e.actor_label for e in mine} == {CLOSED}
    assert {e.actor_label for e in events(delivered["id"]) if e.actor_id == admin.id} == {admin.email}
    timeline = client.get(f"/api/orders/{cancelled['id']}/", headers=admin_headers).text
    trail = client.get("/api/admin/audit/", headers=admin_headers).text
    for text in (timeline, trail):
        assert not [name for name in ("zebq", "Zebulon", "Quartzmann") if name in text]
    assert CLOSED in trail
    with session_scope() as session:
        trail_rows = session.exec(select(models.AuditEvent)).all()
        by_customer = [e for e in trail_rows if e.actor_id == user.id]
        about = [e for e in trail_rows if e.target_type == "user" and e.target_id == user.id]
    assert {e.action for e in by_customer} == {"return.request", "order.status"}
    assert {e.actor_label for e in by_customer} == {CLOSED}
    assert {e.target_label for e in about} == {CLOSED} and {e.actor_label for e in about} == {admin.email}
    changes = {e.action: e.changes for e in about}
    assert changes["user.role"] == {"role": ["customer", "seller"]}  # what changed stays
    assert changes["user.update"] == {"first_name": ["(hidden)", "(hidden)"]}
    assert "zebq@example.com" not in json.dumps([e.changes for e in trail_rows])
