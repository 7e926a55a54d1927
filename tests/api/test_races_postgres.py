"""Issue 20 item 9: the guards against lost updates hold on PostgreSQL, where writers run side by side.

On SQLite every writing request takes the one write lock first, so two requests never both read
"the coupon has a use left" or "the order is pending" before one of them writes: the races below
cannot happen there, and a test there cannot fail when a guard is removed. On PostgreSQL they
can, and they happen only when the requests interleave; releasing threads together leaves that to
chance. So each test makes the interleaving certain: it holds the contested row's lock in a
transaction of its own (``FOR UPDATE``), releases the requests together (a barrier), waits until
every one of them has read the row and is waiting to write it (``pg_stat_activity``), and only then
lets go. Every request has then decided on what it read; only the guard (a conditional UPDATE
whose row count is checked) can turn the late ones away.

Guards under test: ``services.coupons.redeem`` (``used_count < usage_limit``),
``services.orders.status.change_status`` (``status = <the status it read>``), the receipt counter
(``services.receipts.next_sequence``: one upsert whose row lock queues concurrent payments), a
return's steps (``services.returns.steps.move``: receiving puts the stock back once;
``returns.refunds``: one refund, one credit note), and a flash sale's limit per customer
(``services.flash_sales.check_order``, counted after the product row is locked).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text

from discount_deals import models
from discount_deals.db import create_db_engine, get_engine, session_scope
from discount_deals.config.settings import get_settings

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, order_row, place
from ..builders.payments import WEBHOOK, minor, post_webhook, signed
from ..builders.returns import ask_return, delivered_order, return_row, step
from ..builders.shop import add_address, add_coupon
from ..builders.catalog import stock_of

pytestmark = pytest.mark.skipif(
    get_settings().is_sqlite,
    reason="SQLite serialises writers (one write lock), so these races cannot happen there: "
    "run under scripts/with-postgres.sh (make test-postgres)",
)

WAIT_SECONDS = 30


@contextmanager
def row_held(model, row_id: str | None = None, *, where=None) -> Iterator[Callable[[int], None]]:
    """Hold ``model`` row ``row_id``'s lock (or the rows ``where`` selects) until the block ends;
    yields ``wait_for(n)``, which returns once ``n`` other transactions of this database are
    waiting for a lock."""
    engine = create_db_engine(get_settings().database_url, pool_size=2)
    try:
        with engine.connect() as holder, engine.connect() as watcher:
            watcher = watcher.execution_options(isolation_level="AUTOCOMMIT")
            condition = model.id == row_id if where is None else where
            assert holder.execute(select(model).where(condition).with_for_update()).first(), "no row to hold"
            holder_pid = holder.execute(text("SELECT pg_backend_pid()")).scalar_one()

            def wait_for(count: int) -> None:
                deadline = time.monotonic() + WAIT_SECONDS
                waiting = 0
                while time.monotonic() < deadline:
                    # A fresh statement in autocommit: pg_stat_activity is re-read each time.
                    waiting = watcher.execute(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        "AND wait_event_type = 'Lock' AND pid <> :holder"), {"holder": holder_pid}).scalar_one()
                    if waiting >= count:
                        return
                    time.sleep(0.01)  # polling a condition, not waiting for one to happen by itself
                raise AssertionError(f"{waiting} of {count} requests reached the held row in {WAIT_SECONDS} s")

            try:
                yield wait_for
            finally:
                holder.rollback()
    finally:
        engine.dispose()


def start_together(api_app, requests: list[Callable[[TestClient], Any]]) -> Callable[[], list[Any]]:
    """Start each request in its own thread with its own client (its own database connection),
    released together by a barrier. Returns ``finish()``: the answers, once every thread is done
    (call it after the held row is let go, or the requests wait for it forever)."""
    start = threading.Barrier(len(requests))
    answers: list[Any] = [None] * len(requests)

    def run(index: int, request: Callable[[TestClient], Any]) -> None:
        with TestClient(api_app, base_url="http://testserver", raise_server_exceptions=False) as own:
            start.wait()
            answers[index] = request(own)

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in enumerate(requests)]
    for thread in threads:
        thread.start()

    def finish() -> list[Any]:
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads), "a request never finished"
        return answers

    return finish


def test_concurrent_checkouts_never_use_a_coupon_more_often_than_its_limit(api_app, client, make_user, make_product):
    limit, shoppers = 2, 5
    coupon = add_coupon("RACE", "fixed", "1")
    with session_scope() as session:
        row = session.get(models.Coupon, coupon.id)
        row.usage_limit = limit
        session.add(row)
    headers, products = [], []
    for _ in range(shoppers):
        user = make_user()
        add_address(user, is_default=True)
        headers.append(auth_headers(user))
        # A product each: the checkouts then meet only at the coupon's row.
        products.append(make_product(stock=3))
        fill_cart(client, headers[-1], (products[-1], 1))

    def checkout(shopper_headers):
        return lambda own: own.post("/api/orders/checkout/", json={"coupon_code": "race"}, headers=shopper_headers)

    with row_held(models.Coupon, coupon.id) as wait_for:
        finish = start_together(api_app, [checkout(shopper_headers) for shopper_headers in headers])
        wait_for(shoppers)  # every checkout has read the coupon (a use left) and waits to count its use
    answers = finish()

    statuses = Counter(answer.status_code for answer in answers)
    assert statuses == {201: limit, 409: shoppers - limit}, [(a.status_code, a.text) for a in answers]
    assert all(a.json()["detail"] == "This coupon has reached its usage limit." for a in answers if a.status_code == 409)
    with session_scope() as session:
        assert session.get(models.Coupon, coupon.id).used_count == limit
        assert session.execute(select(func.count()).select_from(models.Order)).scalar_one() == limit
    # The refused checkouts took no stock.
    assert sorted(stock_of(product.id) for product in products) == [2] * limit + [3] * (shoppers - limit)


@pytest.fixture
def pending_order(client, make_user, make_product):
    """A pending cash-on-delivery order for 4 of a product with 6 in stock (2 left)."""
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    product = make_product(stock=6)
    fill_cart(client, headers, (product, 4))
    order = place(client, headers, {})
    assert stock_of(product.id) == 2
    return {"id": order["id"], "headers": headers, "product_id": product.id}


def _status_events(order_id: str) -> list[str]:
    with session_scope() as session:
        return list(session.execute(
            select(models.OrderEvent.to_value).where(models.OrderEvent.order_id == order_id,
                                                     models.OrderEvent.kind == "status")
        ).scalars())


def test_concurrent_cancels_restock_once(api_app, pending_order):
    cancels = 4
    url = f"/api/orders/{pending_order['id']}/cancel/"
    with row_held(models.Order, pending_order["id"]) as wait_for:
        finish = start_together(api_app, [lambda own: own.post(url, headers=pending_order["headers"])] * cancels)
        wait_for(cancels)  # every cancel has read "pending" and waits to write "cancelled"
    answers = finish()

    assert Counter(answer.status_code for answer in answers) == {200: 1, 409: cancels - 1}, [a.text for a in answers]
    assert order_row(pending_order["id"]).status == "cancelled"
    assert stock_of(pending_order["product_id"]) == 6  # given back once, not four times
    assert _status_events(pending_order["id"]).count("cancelled") == 1


def test_a_cancel_and_an_admin_status_change_at_once_leave_one_consistent_order(api_app, pending_order, admin):
    url = f"/api/orders/{pending_order['id']}/"

    def cancel(own: TestClient):
        return own.post(f"{url}cancel/", headers=pending_order["headers"])

    def process(own: TestClient):
        return own.patch(url, json={"status": "processing"}, headers=auth_headers(admin))

    with row_held(models.Order, pending_order["id"]) as wait_for:
        finish = start_together(api_app, [cancel, process])
        wait_for(2)
    cancelled, processed = finish()

    assert sorted([cancelled.status_code, processed.status_code]) == [200, 409], (cancelled.text, processed.text)
    status = order_row(pending_order["id"]).status
    events = _status_events(pending_order["id"])
    if cancelled.status_code == 200:
        assert (status, stock_of(pending_order["product_id"])) == ("cancelled", 6)
        assert "processing" not in events
    else:
        assert (status, stock_of(pending_order["product_id"])) == ("processing", 2)
        assert "cancelled" not in events


def test_the_gate_really_holds_writers(pending_order):
    """The tests above rely on this: a request's UPDATE of the held row waits for the gate."""
    finished = threading.Event()

    def write() -> None:
        with get_engine().begin() as connection:
            connection.execute(text('UPDATE "order" SET attention_note = :note WHERE id = :id'),
                               {"note": "x", "id": pending_order["id"]})
        finished.set()

    with row_held(models.Order, pending_order["id"]) as wait_for:
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        wait_for(1)
        assert not finished.is_set()
    writer.join(timeout=30)
    assert finished.is_set()


def test_payments_waiting_on_the_receipt_counter_get_consecutive_numbers(api_app, client, make_user, make_product):
    """Issue 33: every payment reaches the counter's row before any of them has counted; each then
    takes the next number in turn (no two alike, no gap)."""
    from datetime import UTC, datetime

    from ..builders.payments import pay, place_order

    payers = 5
    first = place_order(client, make_user(), make_product)
    pay(client, first)  # the year's counter row now exists (number 1)
    orders = [place_order(client, make_user(), make_product) for _ in range(payers)]
    year = datetime.now(UTC).year
    prefix = get_settings().receipts.prefix
    counter = models.ReceiptCounter

    def report(order: dict) -> Callable[[TestClient], Any]:
        return lambda own: post_webhook(own, "charge.success", order["payment_reference"], minor(order["total"]))

    with row_held(counter, where=(counter.prefix == prefix) & (counter.year == year)) as wait_for:
        finish = start_together(api_app, [report(order) for order in orders])
        wait_for(payers)  # every payment has marked its order paid and waits to count its receipt
    answers = finish()

    assert [answer.status_code for answer in answers] == [200] * payers, [a.text for a in answers]
    numbers = sorted(order_row(order["id"]).receipt_number for order in orders)
    assert numbers == [f"{prefix}-{year}-{n:06d}" for n in range(2, payers + 2)]


def test_concurrent_reviews_all_count_and_a_double_post_makes_one_review(api_app, client, make_user, make_product):
    """Issue 34: reviews of one product queue on its row, so each recomputed average counts every
    review committed before it (none lost to a stale snapshot), and a customer's two concurrent
    POSTs make one review (the second edits it: 201 then 200, never a 500)."""
    from ..builders.reviews import received, review_rows

    product = make_product(rating=1.0)
    buyers = [make_user() for _ in range(3)]
    for user in buyers:
        received(user, product)
    url = f"/api/products/{product.id}/reviews/"

    def review(user, stars: int) -> Callable[[TestClient], Any]:
        return lambda own: own.post(url, json={"rating": stars}, headers=auth_headers(user))

    requests = [review(buyers[0], 5), review(buyers[1], 4), review(buyers[2], 2), review(buyers[2], 3)]
    with row_held(models.Product, product.id) as wait_for:
        finish = start_together(api_app, requests)
        wait_for(len(requests))  # every request checked the buyer and waits for the product's row
    answers = finish()

    assert sorted(answer.status_code for answer in answers) == [200, 201, 201, 201], [a.text for a in answers]
    rows = review_rows(product.id)
    assert sorted(row.user_id for row in rows) == sorted(user.id for user in buyers)
    with session_scope() as session:
        row = session.get(models.Product, product.id)
        stars = [review.rating for review in rows]
        assert (row.review_count, row.admin_rating) == (3, 1.0)
        assert row.rating == round(sum(stars) / 3, 1)


def test_two_checkouts_of_one_customer_never_pass_a_flash_sales_limit(api_app, client, make_user, make_product):
    """Issue 34: both checkouts wait at the product's row (locked for the stock) before either has
    counted what the customer bought; the second counts once the first has committed, and is refused."""
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    product = make_product(price="20.00", discount_price="12.00", stock=20, per_customer_limit=2,
                           discount_start=now - timedelta(hours=1), discount_end=now + timedelta(hours=5))
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    body = {"order": {"items": [{"product": product.id, "quantity": 2}]}}

    def order(own: TestClient):
        return own.post("/api/orders/", json=body, headers=headers)

    with row_held(models.Product, product.id) as wait_for:
        finish = start_together(api_app, [order, order])
        wait_for(2)  # both wait for the product's row, neither has counted
    answers = finish()

    assert Counter(answer.status_code for answer in answers) == {201: 1, 409: 1}, [a.text for a in answers]
    assert [a.json()["code"] for a in answers if a.status_code == 409] == ["per_customer_limit"]
    assert stock_of(product.id) == 18
    with session_scope() as session:
        assert session.execute(select(func.count()).select_from(models.Order)).scalar_one() == 1


@pytest.fixture
def approved_return(client, make_user, make_product, admin_headers):
    """An approved return of 3 of a product's 5 delivered units (15 left in stock)."""
    user = make_user()
    product = make_product(stock=20)
    order = delivered_order(client, user, admin_headers, (product, 5))
    ret = ask_return(client, user, order["id"], [(product.id, 3)])
    step(client, admin_headers, ret["id"], "approve")
    assert stock_of(product.id) == 15
    return {"id": ret["id"], "order_id": order["id"], "product_id": product.id}


def test_concurrent_receives_put_the_stock_back_once(api_app, approved_return, admin_headers):
    receivers = 4
    url = f"/api/admin/returns/{approved_return['id']}/receive/"
    with row_held(models.ReturnRequest, approved_return["id"]) as wait_for:
        finish = start_together(api_app, [lambda own: own.post(url, headers=admin_headers)] * receivers)
        wait_for(receivers)  # every receive has read "approved" and waits to write "received"
    answers = finish()

    assert Counter(answer.status_code for answer in answers) == {200: 1, 409: receivers - 1}, [a.text for a in answers]
    assert all(a.json()["code"] == "return_status" for a in answers if a.status_code == 409)
    assert return_row(approved_return["id"]).status == "received"
    assert stock_of(approved_return["product_id"]) == 18  # 3 back once, not four times


def test_concurrent_refunds_refund_once(api_app, client, approved_return, admin_headers):
    refunders = 3
    step(client, admin_headers, approved_return["id"], "receive")
    url = f"/api/admin/returns/{approved_return['id']}/refund/"
    with row_held(models.ReturnRequest, approved_return["id"]) as wait_for:
        finish = start_together(api_app, [lambda own: own.post(url, headers=admin_headers)] * refunders)
        wait_for(refunders)  # one claims the return and waits on its row; the others wait for the order's lock
    answers = finish()

    assert Counter(answer.status_code for answer in answers) == {200: 1, 409: refunders - 1}, [a.text for a in answers]
    row = return_row(approved_return["id"])
    assert row.status == "refunded" and row.credit_note_number.endswith("-000001")
    assert order_row(approved_return["order_id"]).refunded_total == row.refund_amount
    with session_scope() as session:
        counter = session.execute(select(models.ReceiptCounter.last_number)
                                  .where(models.ReceiptCounter.prefix == "CN")).scalar_one()
    assert counter == 1


def test_two_moves_at_once_never_make_categories_each_others_parent(api_app, make_category, admin_headers):
    # Found by a probe: A under B and B under A at once both answered 200 (3 times in 10).
    first, second = make_category("Drinks"), make_category("Juices")
    moves = [lambda own: own.patch(f"/api/category/{first.id}/", json={"parent": second.id}, headers=admin_headers),
             lambda own: own.patch(f"/api/category/{second.id}/", json={"parent": first.id}, headers=admin_headers)]
    with row_held(models.Category, where=models.Category.id == first.id) as wait_for:
        finish = start_together(api_app, moves)
        wait_for(2)  # both have read the tree and wait to lock it
    answers = finish()

    assert sorted(answer.status_code for answer in answers) == [200, 400], [a.text for a in answers]
    with session_scope() as session:
        parents = {row.id: row.parent_id for row in session.exec(select(models.Category)).scalars()}
    assert not (parents[first.id] == second.id and parents[second.id] == first.id)


def test_restocks_at_once_never_pass_the_stock_ceiling(api_app, make_product, admin_headers):
    # Found by a probe: both read room for 600 more units, and the second UPDATE overflowed (a 500).
    ceiling = 2_147_483_647
    product = make_product(stock=ceiling - 1000)
    url = f"/api/products/{product.id}/restock/"
    with row_held(models.Product, product.id) as wait_for:
        finish = start_together(api_app, [lambda own: own.post(url, json={"quantity": 600}, headers=admin_headers)] * 2)
        wait_for(2)
    answers = finish()

    assert sorted(answer.status_code for answer in answers) == [200, 400], [a.text for a in answers]
    assert stock_of(product.id) == ceiling - 400


def test_two_adds_of_one_product_at_once_both_count(api_app, client, customer, make_product):
    # Found by a probe: the second add of a product new to the cart was a 409 ("conflicts with
    # existing data"), and two adds to a line both wrote the quantity they had read.
    rice, milo = make_product(stock=50), make_product(stock=50)
    headers = auth_headers(customer)
    fill_cart(client, headers, (rice, 1))  # the cart exists
    url = "/api/cart/cartitems/"
    with session_scope() as session:
        cart_id = session.exec(select(models.Cart.id).where(models.Cart.user_id == customer.id)).scalar_one()
    for product, expected in ((milo, 2), (rice, 3)):
        with row_held(models.Cart, cart_id) as wait_for:
            finish = start_together(api_app, [lambda own, p=product: own.post(url, json={"product": p.id, "quantity": 1},
                                                                               headers=headers)] * 2)
            wait_for(2)
        answers = finish()
        assert all(answer.status_code in (200, 201) for answer in answers), [a.text for a in answers]
        with session_scope() as session:
            quantity = session.exec(select(models.CartItem.quantity)
                                    .where(models.CartItem.product_id == product.id)).scalar_one()
        assert quantity == expected


def test_a_cancel_and_the_payment_at_once_leave_a_refund_due(api_app, client, make_user, make_product):
    # Found by a probe: when the webhook's "paid" came between the cancel's read and its write, the
    # cancel decided from the payment it had read (none): cancelled, paid, and no refund flagged.
    user = make_user()
    add_address(user, is_default=True)
    headers = auth_headers(user)
    fill_cart(client, headers, (make_product(stock=10), 1))
    order = place(client, headers, {"payment_method": "mobile_money", "phone": "024 123 4567", "network": "mtn"})
    raw, signed_headers = signed("charge.success", order["payment_reference"], minor(order["total"]))
    calls = [lambda own: own.post(f"/api/orders/{order['id']}/cancel/", headers=headers),
             lambda own: own.post(WEBHOOK, content=raw, headers=signed_headers)]
    with row_held(models.Order, order["id"]) as wait_for:
        finish = start_together(api_app, calls)
        wait_for(2)
    answers = finish()

    assert [answer.status_code for answer in answers] == [200, 200], [a.text for a in answers]
    row = order_row(order["id"])
    assert (row.status, row.payment_status, row.attention) == ("cancelled", "paid", "refund_due")
