"""The back office's order search finds what an admin has when a customer calls: their name or
their phone number, as well as an order number or an email (a probe's searches for
"Agyeiwaa", "Nana Akosua" and "024 111 2233" found nothing)."""

from __future__ import annotations

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, place
from ..builders.shop import add_address


def _order(client, user, product, **body) -> str:
    fill_cart(client, auth_headers(user), (product, 1))
    return place(client, auth_headers(user), body)["id"]


def test_orders_are_found_by_the_customers_name_and_phone(client, make_user, make_product, admin_headers):
    product = make_product(stock=20)
    nana = make_user(email="nana@example.com", first_name="Nana Akosua", last_name="Agyeiwaa-Mensah",
                     phonenumber="+233201234567")
    kofi = make_user(email="kofi@example.com", first_name="Kofi", last_name="Boateng", phonenumber="")
    for user in (nana, kofi):
        add_address(user, is_default=True)
    hers = _order(client, nana, product)
    his = _order(client, kofi, product, contact_phone="024 111 2233")

    def found(search: str) -> list[str]:
        answer = client.get("/api/admin/orders/", params={"search": search}, headers=admin_headers)
        assert answer.status_code == 200, answer.text
        return [order["id"] for order in answer.json()["results"]]

    for search in ("Agyeiwaa", "nana akosua", "AKOSUA AGYEIWAA"[:6], "Akosua Agyeiwaa"):
        assert found(search) == [hers], search
    for search in ("024 111 2233", "0241112233", "+233 24 111 2233", "233241112233", "1112233"):
        assert found(search) == [his], search
    assert found("020 123 4567") == [hers]  # the account's number, when the order has none of its own
    assert found("Boateng") == [his]
    assert found("12345") == []  # too short to be a phone, and no order number starts so
    assert found("kofi@") == [his]  # what was found before still is
    assert found(his[:8]) == [his]
