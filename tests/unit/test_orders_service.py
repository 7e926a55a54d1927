"""The order and coupon services as the Reflex UI and the CLI call them (no HTTP)."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import select

from discount_deals import models
from discount_deals.db import session_scope
from discount_deals.services import Conflict, NotAuthenticated, PermissionDenied, ServiceError, ValidationFailed
from discount_deals.services import cart as cart_service
from discount_deals.services import coupons
from discount_deals.services import orders as order_service

from ..builders.shop import add_address
from ..builders.rows import count_rows
from ..builders.catalog import stock_of


def run_threads(count: int, target) -> list:
    """Run ``target(i)`` from ``count`` threads released together; return results or exceptions."""
    start = threading.Barrier(count)
    results: list = [None] * count

    def work(i: int) -> None:
        start.wait()
        try:
            results[i] = target(i)
        except Exception as exc:  # the test inspects what each thread got
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def test_placing_orders_needs_a_user():
    with pytest.raises(NotAuthenticated):
        order_service.checkout(None)
    with pytest.raises(NotAuthenticated):
        order_service.create_order(None, [{"product": "p", "quantity": 1}])


def test_checkout_service(customer, make_product):
    add_address(customer, is_default=True)
    product = make_product(price="12.00", stock=3)
    with session_scope() as session:
        cart_service.add_item(session, customer, product.id, 2)
    order = order_service.checkout(customer)
    assert (order.subtotal, order.shipping, order.tax, order.total) == (
        Decimal("24.00"), Decimal("5.99"), Decimal("1.92"), Decimal("31.91"),
    )
    with session_scope() as session:
        lines = order_service.order_items(session, order)
        assert [(line.item.name, line.item.quantity, line.item.line_total) for line in lines] == [
            (product.name, 2, Decimal("24.00"))
        ]
        assert lines[0].product.id == product.id
        assert cart_service.cart_lines(session, customer) == []
        orders, count = order_service.list_orders(session, customer)
        assert count == 1 and orders[0].id == order.id
    assert stock_of(product.id) == 1


def test_status_changes_are_for_admins_only(make_user, customer, make_product):
    add_address(customer, is_default=True)
    order = order_service.create_order(customer, [{"product": make_product().id, "quantity": 1}])
    with session_scope() as session:
        with pytest.raises(PermissionDenied):
            order_service.update_status(session, customer, order.id, "processing")
        with pytest.raises(NotAuthenticated):
            order_service.update_status(session, None, order.id, "processing")
        changed = order_service.update_status(session, make_user(role="admin"), order.id, "processing")
        assert changed.status == "processing"


def test_admins_may_read_any_order_customers_only_theirs(make_user, customer, make_product):
    add_address(customer, is_default=True)
    order = order_service.create_order(customer, [{"product": make_product().id, "quantity": 1}])
    with session_scope() as session:
        assert order_service.get_order(session, make_user(role="admin"), order.id).id == order.id
        with pytest.raises(ServiceError) as refused:
            order_service.get_order(session, make_user(), order.id)
        assert refused.value.status == 404
        # The admin's own list holds only the admin's orders.
        assert order_service.list_orders(session, make_user(role="admin")) == ([], 0)


def test_twenty_service_checkouts_for_five_units(make_user, make_product):
    product = make_product(name="Scarce Speaker", stock=5)
    shoppers = [make_user() for _ in range(20)]
    for shopper in shoppers:
        add_address(shopper, is_default=True)
        with session_scope() as session:
            cart_service.add_item(session, shopper, product.id, 1)

    results = run_threads(20, lambda i: order_service.checkout(shoppers[i]))

    placed = [r for r in results if isinstance(r, models.Order)]
    refused = [r for r in results if isinstance(r, Conflict)]
    assert (len(placed), len(refused)) == (5, 15), results
    assert all("Scarce Speaker" in exc.detail for exc in refused)
    assert stock_of(product.id) == 0
    assert count_rows(models.Order) == 5


def test_the_same_idempotency_key_from_many_threads_places_one_order(customer, make_product):
    add_address(customer, is_default=True)
    product = make_product(stock=50)
    with session_scope() as session:
        cart_service.add_item(session, customer, product.id, 2)

    results = run_threads(10, lambda _i: order_service.checkout(customer, idempotency_key="double-click"))

    assert all(isinstance(r, models.Order) for r in results), [r for r in results if not isinstance(r, models.Order)]
    assert len({order.id for order in results}) == 1
    assert count_rows(models.Order) == 1
    assert stock_of(product.id) == 48


# --- coupons ---------------------------------------------------------------------------------


def test_create_coupon_stores_an_upper_case_code(session):
    coupon = coupons.create_coupon(session, " summer-10 ", percent="12.5")
    assert (coupon.code, coupon.kind, coupon.value, coupon.active, coupon.expires_at) == (
        "SUMMER-10", "percent", Decimal("12.5"), True, None,
    )
    assert coupons.find_coupon(session, "Summer-10").id == coupon.id


def test_a_coupon_is_valid_through_its_expiry_day(session):
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    coupon = coupons.create_coupon(session, "FIVE", amount="5", expires_on=tomorrow)
    assert coupon.kind == "fixed"
    assert coupon.expires_at == datetime.combine(tomorrow + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    assert coupons.find_coupon(session, "five").id == coupon.id


@pytest.mark.parametrize(
    "code, kwargs, message",
    [
        ("", {"percent": "10"}, "Coupon code"),
        ("HAS SPACE", {"percent": "10"}, "Coupon code"),
        ("X" * 65, {"percent": "10"}, "Coupon code"),
        ("BOTH", {"percent": "10", "amount": "5"}, "either"),
        ("NONE", {}, "either"),
        ("ZERO", {"percent": "0"}, "above 0"),
        ("HUGE", {"percent": "100.01"}, "at most 100"),
        ("WORDS", {"percent": "ten"}, "must be a number"),
        ("NAN", {"amount": "NaN"}, "must be a number"),
        ("NEG", {"amount": "-1"}, "above 0"),
        ("CENTS", {"amount": "1.234"}, "2 decimal places"),
        ("PAST", {"amount": "1", "expires_on": date(2020, 1, 1)}, "in the past"),
    ],
)
def test_create_coupon_validation(session, code, kwargs, message):
    with pytest.raises(ValidationFailed, match=message):
        coupons.create_coupon(session, code, **kwargs)
    assert session.exec(select(models.Coupon)).all() == []


def test_coupon_codes_are_unique_regardless_of_case(session):
    coupons.create_coupon(session, "WELCOME", percent="5")
    with pytest.raises(ValidationFailed, match="already exists"):
        coupons.create_coupon(session, "welcome", amount="2")


def test_find_coupon_refuses_inactive_and_expired(session):
    session.add(models.Coupon(code="OFF", kind="percent", value=Decimal(5), active=False))
    expired = datetime.now(UTC) - timedelta(seconds=1)
    session.add(models.Coupon(code="GONE", kind="percent", value=Decimal(5), expires_at=expired))
    session.flush()
    for code in ("OFF", "GONE", "MISSING", ""):
        with pytest.raises(ValidationFailed, match="^Invalid coupon code$"):
            coupons.find_coupon(session, code)


def test_stock_is_taken_for_every_line_at_once_and_a_short_row_refuses_by_name(clean_db, make_product):
    """The guarded decrement behind checkout (one UPDATE for every line): each row loses its own
    quantity and the loaded rows read the new stock; a row that has less than its quantity (it
    changed after it was read) refuses with the first such product's name, and the caller's
    rollback leaves every row as it was."""
    from discount_deals.services import pricing
    from discount_deals.services.orders import placement

    rice, oil, soap = make_product("Rice", stock=5), make_product("Oil", stock=3), make_product("Soap", stock=1)
    with session_scope() as session:
        products = [session.get(models.Product, p.id) for p in (rice, oil)]
        placement._take_stock(session, [(p, pricing.priced_line(p, q)) for p, q in zip(products, (2, 3),
                                                                                                  strict=True)])
        assert [p.stock for p in products] == [3, 0]
    assert (stock_of(rice.id), stock_of(oil.id)) == (3, 0)

    salt = make_product("Salt", stock=1)
    first_short = min((soap, salt), key=lambda p: p.id)  # the refusal names the first short row in id order
    with pytest.raises(Conflict) as refused, session_scope() as session:
        lines = [(session.get(models.Product, p.id), 2) for p in (rice, soap, salt)]
        placement._take_stock(session, [(p, pricing.priced_line(p, q)) for p, q in lines])
    assert refused.value.code == "stock_short" and str(refused.value) == f"Not enough stock for {first_short.name}."
    assert (stock_of(rice.id), stock_of(soap.id), stock_of(salt.id)) == (3, 1, 1)
