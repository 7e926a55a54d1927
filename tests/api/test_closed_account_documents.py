"""A closed account's receipts, credit notes and the back office's sheets print no email (probe 65):
they printed the closing's placeholder, deleted-<id>@deleted.invalid, as the buyer's email."""

from __future__ import annotations

import csv
import io

from ..builders.accounts import PASSWORD, auth_headers
from ..builders.returns import ask_return, momo_order, returned_and_received, step


def _sheet(client, admin_headers, name: str) -> list[dict[str, str]]:
    answer = client.get(f"/api/admin/exports/{name}", headers=admin_headers)
    assert answer.status_code == 200, answer.text
    return list(csv.DictReader(io.StringIO(answer.text)))


def _emails(client, admin_headers, order_id: str, return_id: str) -> list[str]:
    receipt = client.get(f"/api/orders/{order_id}/receipt/", headers=admin_headers).json()
    credit_note = client.get(f"/api/returns/{return_id}/credit-note/", headers=admin_headers).json()
    register = _sheet(client, admin_headers, "documents.csv")
    orders = _sheet(client, admin_headers, "orders.csv")
    return [receipt["buyer"]["email"], credit_note["buyer"]["email"], *(row["customer_email"] for row in register),
            *(row["customer_email"] for row in orders)]


def test_a_closed_accounts_documents_print_no_email(client, make_user, make_product, admin_headers):
    user = make_user(email="zebq@example.com", first_name="Zebulonx", last_name="Q")
    product = make_product(price="20.00", stock=10)
    order = momo_order(client, user, admin_headers, (product, 2))
    ret = ask_return(client, user, order["id"], [(product.id, 1)])
    returned_and_received(client, admin_headers, ret["id"])
    step(client, admin_headers, ret["id"], "refund")
    assert set(_emails(client, admin_headers, order["id"], ret["id"])) == {"zebq@example.com"}

    assert client.post("/api/users/me/close/", json={"password": PASSWORD}, headers=auth_headers(user)).status_code == 204
    assert set(_emails(client, admin_headers, order["id"], ret["id"])) == {""}
