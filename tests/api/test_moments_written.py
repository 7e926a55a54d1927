"""Every answer writes a moment one way: ISO 8601 in UTC ending in ``Z``, as pydantic writes the
products' and users' (orders, their history, favourites, reviews, returns and receipts wrote
``+00:00``)."""

from __future__ import annotations

import re

from ..builders.accounts import auth_headers
from ..builders.returns import ask_return, delivered_order

Z_MOMENT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$")


def moments_in(value, path: str = "") -> dict[str, str]:
    """Every value that reads as a moment, by where it stands."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in moments_in(item, f"{path}.{key}").items()}
    if isinstance(value, list):
        return {k: v for n, item in enumerate(value) for k, v in moments_in(item, f"{path}[{n}]").items()}
    if isinstance(value, str) and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d", value):
        return {path: value}
    return {}


def test_every_answer_writes_moments_in_utc_with_a_z(client, customer, make_product, admin_headers):
    headers = auth_headers(customer)
    product = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (product, 2))
    ask_return(client, customer, order["id"], [(product.id, 1)])
    client.post("/api/favorites/", json={"product": product.id}, headers=headers)
    client.post(f"/api/products/{product.id}/reviews/", json={"rating": 5, "text": "Good"}, headers=headers)
    answers = {
        "order": client.get(f"/api/orders/{order['id']}/", headers=headers).json(),
        "orders": client.get("/api/orders/", headers=headers).json(),
        "favourites": client.get("/api/favorites/", headers=headers).json(),
        "returns": client.get(f"/api/orders/{order['id']}/returns/", headers=headers).json(),
        "receipt": client.get(f"/api/orders/{order['id']}/receipt/", headers=headers).json(),
        "reviews": client.get(f"/api/products/{product.id}/reviews/").json(),
        "product": client.get(f"/api/products/{product.id}").json(),
        "me": client.get("/api/users/me/", headers=headers).json(),
    }
    found = {name: moments_in(body) for name, body in answers.items()}
    for name in ("order", "orders", "favourites", "returns", "receipt", "reviews", "product"):
        assert found[name], f"{name} wrote no moment"
    wrong = {f"{name}{path}": text for name, moments in found.items() for path, text in moments.items()
             if not Z_MOMENT.match(text)}
    assert wrong == {}


def test_the_audit_trail_writes_the_moments_it_records_with_a_z(client, admin_headers, make_product):
    product = make_product(price="20.00")
    changed = client.patch(f"/api/products/{product.id}", headers=admin_headers,
                           json={"discount_price": "15.00", "discount_end": "2030-01-01T00:00:00Z"})
    assert changed.status_code == 200, changed.text
    events = client.get("/api/admin/audit/", params={"target_id": product.id}, headers=admin_headers).json()
    found = moments_in(events["results"])
    assert "2030-01-01T00:00:00Z" in found.values()
    assert [text for text in found.values() if not Z_MOMENT.match(text)] == []
