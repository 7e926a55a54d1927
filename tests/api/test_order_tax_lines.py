"""The order JSON's tax lines (issue 33, item 2): the taxes an order was placed with, summing to its
tax, kept on the order whatever the settings say later."""

from __future__ import annotations

from contextlib import contextmanager
from decimal import Decimal

from alembic import command
from sqlalchemy import text

from discount_deals import models
from discount_deals.db import create_db_engine, session_scope
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..support.migrations import alembic_on
from ..builders.checkout import fill_cart, order_row, place
from ..builders.shop import add_address, add_coupon


@contextmanager
def tax_settings(monkeypatch, **env: str):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        yield
    finally:
        for name in env:
            monkeypatch.delenv(name)
        get_settings.cache_clear()


def place_one(client, customer, make_product, price: str = "10.00", quantity: int = 1, body: dict | None = None):
    add_address(customer, is_default=True)
    fill_cart(client, auth_headers(customer), (make_product(price=price, stock=50), quantity))
    return place(client, auth_headers(customer), body or {})


def test_the_default_order_has_one_8_percent_tax_line(client, customer, make_product):
    order = place_one(client, customer, make_product, "12.35", 3)
    assert order["tax"] == "2.96"
    assert order["tax_lines"] == [{"code": "tax", "label": "Tax", "rate": "8.00", "amount": "2.96", "included": False}]
    assert order["total"] == "46.00"  # 37.05 + 2.96 tax + 5.99 delivery: the spec's numbers unchanged
    assert order_row(order["id"]).tax_lines == order["tax_lines"]  # stored on the row


def test_ghana_orders_show_vat_nhil_and_getfund(client, customer, make_product, monkeypatch):
    with tax_settings(monkeypatch, DD_TAX="ghana"):
        add_coupon("TEN", "percent", "10")
        order = place_one(client, customer, make_product, "33.33", 2, {"coupon_code": "TEN"})
    # 66.66 less 10 % (6.67) = 59.99 taxable; 20 % = 12.00 (11.998).
    assert (order["subtotal"], order["discount"], order["tax"]) == ("66.66", "6.67", "12.00")
    assert [(line["code"], line["label"], line["rate"], line["amount"]) for line in order["tax_lines"]] == [
        ("vat", "VAT", "15.00", "9.00"), ("nhil", "NHIL", "2.50", "1.50"), ("getfund", "GETFund levy", "2.50", "1.50")]
    assert order["total"] == "71.99"  # 59.99 + 12.00 tax, delivery free over 50, never taxed
    assert sum(Decimal(line["amount"]) for line in order["tax_lines"]) == Decimal(order["tax"])


def test_prices_including_tax_show_the_tax_inside_the_total(client, customer, make_product, monkeypatch):
    with tax_settings(monkeypatch, DD_TAX="ghana", DD_PRICES_INCLUDE_TAX="1"):
        order = place_one(client, customer, make_product, "30.00", 1)
    assert (order["subtotal"], order["shipping"], order["tax"], order["total"]) == ("30.00", "5.99", "5.00", "35.99")
    assert [(line["amount"], line["included"]) for line in order["tax_lines"]] == [
        ("3.75", True), ("0.63", True), ("0.62", True)]  # 5.00 split 15 : 2.5 : 2.5, the odd cent to NHIL first
    row = order_row(order["id"])
    assert (row.total, row.tax) == (Decimal("35.99"), Decimal("5.00"))


def test_an_order_keeps_its_lines_when_the_settings_change(client, customer, make_product, monkeypatch):
    with tax_settings(monkeypatch, DD_TAX="ghana"):
        order = place_one(client, customer, make_product, "10.00", 1)
    again = client.get(f"/api/orders/{order['id']}/", headers=auth_headers(customer)).json()
    assert [line["code"] for line in again["tax_lines"]] == ["vat", "nhil", "getfund"]
    listed = client.get("/api/orders/", headers=auth_headers(customer)).json()["results"]
    assert listed[0]["tax_lines"] == again["tax_lines"]


def test_an_order_placed_before_tax_lines_reads_as_its_one_tax(client, customer, make_product, admin_headers):
    order = place_one(client, customer, make_product, "10.00", 1)
    with session_scope() as session:
        session.get(models.Order, order["id"]).tax_lines = None
    shown = client.get(f"/api/admin/orders/{order['id']}/", headers=admin_headers).json()
    assert shown["tax_lines"] == [{"code": "tax", "label": "Tax", "rate": "8.00", "amount": "0.80", "included": False}]


def insert_row(connection, table: str, **values) -> None:
    """A row with ``values`` and a plain value in every other required column (the schema of that revision)."""
    for column in connection.execute(text(f'PRAGMA table_info("{table}")')).mappings():
        if column["notnull"] and column["dflt_value"] is None and column["name"] not in values:
            kind = column["type"].upper()
            numeric = any(word in kind for word in ("INT", "NUMERIC", "BOOL", "FLOAT"))
            values[column["name"]] = 0 if numeric else "2026-01-01" if "DATE" in kind else "x"
    names = ", ".join(f'"{name}"' for name in values)
    connection.execute(text(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join(":" + name for name in values)})'),
                       values)


def test_the_migration_gives_existing_orders_their_one_tax_line(tmp_path):
    url = f"sqlite:///{tmp_path / 'before.db'}"
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_on(connection)
            command.upgrade(config, "9c2e4f7a1b35")
            insert_row(connection, "user", id="u1", email="a@example.com", username="a")
            insert_row(connection, "order", id="o1", user_id="u1", tax="0.80", total="16.79")
            command.upgrade(config, "head")
            stored = connection.execute(text("SELECT tax_lines FROM \"order\" WHERE id = 'o1'")).scalar_one()
    finally:
        engine.dispose()
    assert "\"amount\": \"0.80\"" in stored and "\"code\": \"tax\"" in stored and "\"rate\": \"8.00\"" in stored
