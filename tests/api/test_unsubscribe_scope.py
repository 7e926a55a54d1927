"""What an email's unsubscribe link of order updates stops, and where return updates go (probe 65):
a customer whose order updates come by SMS to the order's number (no mobile number on the
profile) heard about their return by email, and the link in that email turned the texts off too."""

from __future__ import annotations

from discount_deals.services.messages.templates import RETURN_KINDS

from ..builders.messaging import outbox
from ..builders.returns import ask_return, momo_order, step

ORDER_NUMBER = "+233551112223"


def test_return_updates_go_where_the_orders_updates_go(client, messaging, make_user, make_product, admin_headers):
    user = make_user(phonenumber="")
    product = make_product(price="20.00", stock=10)
    order = momo_order(client, user, admin_headers, (product, 1), phone="055 111 2223")
    assert {(m.channel, m.recipient) for m in outbox(subject_id=order["id"])} == {("sms", ORDER_NUMBER)}
    ret = ask_return(client, user, order["id"], [(product.id, 1)])
    step(client, admin_headers, ret["id"], "approve")
    sent = [(m.kind, m.channel, m.recipient) for m in outbox(subject_id=order["id"]) if m.kind in RETURN_KINDS]
    assert sent == [("return_requested", "sms", ORDER_NUMBER), ("return_approved", "sms", ORDER_NUMBER)]
