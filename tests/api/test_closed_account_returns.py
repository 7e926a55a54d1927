"""Closing an account and the returns and messages it leaves behind (probe 65): a return not yet
settled keeps the account open, and nothing is queued for a closed account (a suspended one still
hears of its orders)."""

from __future__ import annotations

from ..builders.accounts import PASSWORD, auth_headers
from ..builders.checkout import MOMO, fill_cart, place
from ..builders.messaging import outbox
from ..builders.payments import minor, post_webhook
from ..builders.returns import ask_return, momo_order, step
from ..builders.shop import add_address

CLOSE = "/api/users/me/close/"
RETURNS_OPEN = "Your open returns must be refunded or rejected before the account is closed."


def _close(client, user):
    return client.post(CLOSE, json={"password": PASSWORD}, headers=auth_headers(user))


def test_an_open_return_keeps_the_account_until_it_is_refunded(client, messaging, make_user, make_product,
                                                                admin_headers):
    # Closing with a return requested was allowed; its approval, receipt and refund messages were
    # then queued to the closed account's placeholder address (deleted-<id>@deleted.invalid).
    user = make_user(phonenumber="")
    product = make_product(price="20.00", stock=10)
    order = momo_order(client, user, admin_headers, (product, 2), phone="055 111 2223")
    ret = ask_return(client, user, order["id"], [(product.id, 1)])
    for name in ("", "approve", "receive"):
        if name:
            step(client, admin_headers, ret["id"], name)
        refused = _close(client, user)
        assert refused.status_code == 409, (name, refused.text)
        assert refused.json()["detail"] == RETURNS_OPEN
    step(client, admin_headers, ret["id"], "refund")
    rejected = ask_return(client, user, order["id"], [(product.id, 1)])
    step(client, admin_headers, rejected["id"], "reject", note="Opened")
    assert _close(client, user).status_code == 204
    assert not [m for m in outbox() if "deleted.invalid" in m.recipient]


def test_nothing_is_queued_for_a_closed_account(client, messaging, make_user, make_product, admin_headers):
    # A paid order the customer cancelled is refunded by the back office after the account closed:
    # the refund's message went to the placeholder address.
    user = make_user(phonenumber="")
    add_address(user, is_default=True)
    fill_cart(client, auth_headers(user), (make_product(price="20.00", stock=10), 1))
    order = place(client, auth_headers(user), {**MOMO, "phone": "055 111 2223"})
    post_webhook(client, "charge.success", order["payment_reference"], minor(order["total"]))
    assert client.post(f"/api/orders/{order['id']}/cancel/", headers=auth_headers(user)).status_code == 200
    assert _close(client, user).status_code == 204
    before = len(outbox())
    refunded = client.post(f"/api/admin/orders/{order['id']}/refunded/", headers=admin_headers)
    assert refunded.status_code == 200, refunded.text
    assert outbox()[before:] == []


def test_a_suspended_customer_still_hears_of_their_orders(client, messaging, make_user, make_product, admin_headers):
    """Suspended is not closed: the person and their contacts are real, and their orders go on."""
    user = make_user(phonenumber="+233241234567")
    add_address(user, is_default=True)
    fill_cart(client, auth_headers(user), (make_product(price="20.00", stock=10), 1))
    order = place(client, auth_headers(user))
    assert client.patch(f"/api/users/admin/users/{user.id}/", json={"is_active": False},
                        headers=admin_headers).status_code == 200
    before = len(outbox())
    for status in ("processing", "shipped", "delivered"):
        assert client.patch(f"/api/orders/{order['id']}/", json={"status": status},
                            headers=admin_headers).status_code == 200
    assert {message.kind for message in outbox()[before:]} >= {"order_shipped", "order_delivered"}
