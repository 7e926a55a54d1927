"""Found by probing the back office: dates at the calendar's edges were 500s (an OverflowError, not
a ValueError); digits of other scripts ("²", "⑤") passed str.isdigit() and then failed int(), a
500; a NUL in related products was a 500 on PostgreSQL; and a CSV row longer than its header
moved every value one column over. Each is now a 400 that writes nothing, or a list that answers."""

from __future__ import annotations

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope

from ..builders.rows import count_rows

EDGES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-05:00"]


@pytest.mark.parametrize("moment", EDGES)
@pytest.mark.parametrize("field", ["discount_start", "discount_end"])
def test_a_discount_window_past_the_calendar_is_a_400(client, admin_headers, make_category, field, moment):
    category = make_category("Grains")
    body = {"name": "Edge rice", "price": "10.00", "category": category.id, "discount_price": "5.00", field: moment}
    answer = client.post("/api/products/", json=body, headers=admin_headers)
    assert answer.status_code == 400 and field in answer.json(), answer.text
    assert count_rows(models.Product) == 0


@pytest.mark.parametrize("expires", ["9999-12-31", "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+14:00"])
def test_a_coupon_expiring_past_the_calendar_is_a_400_or_never_expires_early(client, admin_headers, expires):
    answer = client.post("/api/admin/coupons/", json={"code": "EDGE1", "kind": "percent", "value": "10",
                                                      "expires_at": expires}, headers=admin_headers)
    if expires == "9999-12-31":  # the last day there is: it expires after it
        assert answer.status_code == 201, answer.text
        with session_scope() as session:
            assert session.exec(select(models.Coupon)).one().expires_at.year == 9999
    else:
        assert answer.status_code == 400 and "expires_at" in answer.json(), answer.text
        assert count_rows(models.Coupon) == 0


@pytest.mark.parametrize("path", ["/api/admin/orders/", "/api/admin/audit/", "/api/admin/exports/orders.csv"])
def test_lists_to_the_last_day_of_the_calendar_answer(client, admin_headers, path):
    answer = client.get(f"{path}?date_from=2026-01-01&date_to=9999-12-31", headers=admin_headers)
    assert answer.status_code == 200, answer.text
    assert answer.text  # the export's body was empty: it failed after its headers were sent


@pytest.mark.parametrize("moment", EDGES)
def test_the_audit_log_refuses_moments_past_the_calendar(client, admin_headers, moment):
    for name in ("date_from", "date_to"):
        answer = client.get("/api/admin/audit/", params={name: moment}, headers=admin_headers)
        assert answer.status_code == 400 and name in answer.json(), answer.text


def test_a_csv_row_longer_than_its_header_is_refused_not_shifted(client, admin_headers, make_category):
    make_category("Grains")
    data = b"name,price,category,stock\nX,Rice,10.00,Grains,5\nBeans,2.00,Grains,1\n"
    answer = client.post("/api/products/bulk-upload/", files={"file": ("p.csv", data, "text/csv")},
                         headers=admin_headers)
    assert answer.status_code == 400 and "row 2 has more cells" in answer.json()["detail"], answer.text
    assert count_rows(models.Product) == 0


@pytest.mark.parametrize("digits", ["\u00b2", "\u2464", "\u0663", "\uff13"])
def test_digits_of_other_scripts_are_not_numbers(client, admin_headers, make_product, digits):
    product = make_product(stock=5)
    restock = client.post(f"/api/products/{product.id}/restock/", json={"quantity": digits}, headers=admin_headers)
    assert restock.status_code == 400 and "quantity" in restock.json(), restock.text
    assert client.get("/api/products/featured/", params={"limit": digits}).status_code == 400
    assert client.get("/api/products/", params={"discount": digits}).status_code == 400
    coupon = client.post("/api/admin/coupons/", json={"code": "DIG1", "kind": "percent", "value": "10",
                                                       "usage_limit": digits}, headers=admin_headers)
    assert coupon.status_code == 400 and "usage_limit" in coupon.json(), coupon.text
    assert count_rows(models.Coupon) == 0
    with session_scope() as session:
        assert session.get(models.Product, product.id).stock == 5


def test_a_related_product_id_with_a_nul_is_no_product(client, admin_headers, make_product):
    product = make_product()
    answer = client.patch(f"/api/products/{product.id}/", json={"related_products": ["a\u0000b"]},
                          headers=admin_headers)
    assert answer.status_code == 400 and "related_products" in answer.json(), answer.text


@pytest.mark.parametrize("path", ["/api/orders/checkout/", "/api/orders/"])
def test_an_order_too_large_for_the_money_columns_is_a_400_that_writes_nothing(client, customer, make_product, path):
    """Two of the dearest price a product may have come to 19,999,999,999.98: more than a money
    column holds (12 digits). SQLite stored it anyway and PostgreSQL would refuse the row; both now
    refuse the order, naming why, before anything is taken."""
    from ..builders.accounts import auth_headers
    from ..builders.catalog import stock_of
    from ..builders.checkout import fill_cart
    from ..builders.shop import add_address

    add_address(customer, is_default=True)
    dear = make_product(price="9999999999.99", stock=5)
    headers = auth_headers(customer)
    if path.endswith("checkout/"):
        fill_cart(client, headers, (dear, 2))
        response = client.post(path, json={}, headers=headers)
    else:
        response = client.post(path, json={"order": {"items": [{"product": dear.id, "quantity": 2}]}}, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "order_too_large"
    assert count_rows(models.Order) == 0 and stock_of(dear.id) == 5
    large = make_product(price="9000000000.00", stock=5)  # with its 8 % tax: 9,720,000,000.00
    fine = client.post("/api/orders/", json={"order": {"items": [{"product": large.id, "quantity": 1}]}},
                       headers=headers)
    assert fine.status_code == 201 and fine.json()["total"] == "9720000000.00"


def test_savings_too_large_for_their_column_refuse_the_order(client, customer, make_product):
    """A sale at 1.00 of a product listed at 9,999,999,999.00: two of them save 19,999,999,996.00,
    which no money column holds, though the order's total is 2.16."""
    from ..builders.accounts import auth_headers
    from ..builders.catalog import stock_of
    from ..builders.shop import add_address

    add_address(customer, is_default=True)
    sale = make_product(price="9999999999.00", discount_price="1.00", stock=5)
    body = {"order": {"items": [{"product": sale.id, "quantity": 2}]}}
    response = client.post("/api/orders/", json=body, headers=auth_headers(customer))
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "order_too_large"
    assert count_rows(models.Order) == 0 and stock_of(sale.id) == 5


def test_an_explicit_order_names_every_bad_item_in_sentences(client, customer):
    from ..builders.accounts import auth_headers

    body = {"order": {"items": [{"quantity": 1}, {"quantity": 2}]}}
    response = client.post("/api/orders/", json=body, headers=auth_headers(customer))
    assert response.status_code == 400
    assert ".; " not in response.json()["detail"] and response.json()["detail"].count("Item ") == 2


@pytest.mark.parametrize("page", ["\uff12", "\u0662", " 2", "+2"])
def test_page_numbers_are_ascii_digits_too(client, make_product, page):
    """int() took full-width and Arabic-Indic digits, a space and a plus: "２" served page 2."""
    make_product()
    for name in ("page", "page_size"):
        answer = client.get("/api/products/", params={name: page})
        assert answer.status_code == 400 and name in answer.json(), answer.text


@pytest.mark.parametrize("moment", ["2030", "3", "-5", "1.999", "20301231"])
@pytest.mark.parametrize("field", ["discount_start", "discount_end"])
def test_a_bare_number_is_no_discount_moment(client, admin_headers, make_product, field, moment):
    """pydantic reads a number as seconds since 1970: "2030" typed as the start put a sale meant
    for 2030 on at once (1970-01-01T00:33:50Z). A moment is written date first."""
    product = make_product(price="10.00")
    body = {"discount_price": "5.00", "discount_start": "2030-01-01", "discount_end": "2030-12-31", field: moment}
    answer = client.patch(f"/api/products/{product.id}/", json=body, headers=admin_headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()[field] == ["Enter a valid date and time, e.g. 2026-11-30T10:00."]
    with session_scope() as session:
        row = session.get(models.Product, product.id)
        assert (row.discount_price, row.discount_start) == (None, None)


def test_an_id_in_capitals_or_without_hyphens_finds_its_row(client, customer, make_product):
    """The original server's UUID lookups took any spelling of a UUID; ours answered 404."""
    from ..builders.accounts import auth_headers
    from ..builders.shop import add_address

    product = make_product()
    address = add_address(customer, line1="Spelt Road")
    for spelling in (product.id.upper(), product.id.replace("-", ""), "{" + product.id + "}"):
        answer = client.get(f"/api/products/{spelling}/")
        assert answer.status_code == 200 and answer.json()["data"]["id"] == product.id, answer.text
    changed = client.patch(f"/api/users/addresses/{address.id.upper()}/", json={"line1": "Capital Road"},
                           headers=auth_headers(customer))
    assert changed.status_code == 200, changed.text
    with session_scope() as session:
        assert session.get(models.Address, address.id).line1 == "Capital Road"
    assert client.get(f"/api/products/{product.id[:-1]}/").status_code == 404  # not a UUID: nothing
