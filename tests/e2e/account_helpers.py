"""Helpers shared by the account and orders browser tests."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

from playwright.sync_api import Page, expect

from discount_deals.models import Address, Order, OrderItem
from discount_deals.services import users as user_service

from ..conftest import ROOT

SCREENSHOTS = ROOT / "test-results" / "screenshots"
SESSION_KEYS = ("accessToken", "refreshToken", "user", "cart-storage", "orders-storage")


def whole_page_shot(page: Page, name: str, notes: Path) -> Path:
    """The whole page from its top, without the toasts of the moment, in test-results/screenshots/
    (and copied to ``notes`` when that folder exists)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True, style="[data-sonner-toaster] { display: none !important; }")
    if notes.is_dir():
        shutil.copy(path, notes / path.name)
    return path


def toast(page: Page, text: "str | re.Pattern"):
    return page.locator("[data-sonner-toast]").filter(has_text=text).first


def settled_box(locator) -> dict:
    """The element's box once it has stopped moving (a toast slides into its place)."""
    return locator.evaluate(
        """el => new Promise(done => {
             let last = null;
             const tick = () => {
               const box = el.getBoundingClientRect();
               if (last && Math.abs(box.y - last.y) < 0.5 && Math.abs(box.x - last.x) < 0.5) {
                 done({x: box.x, y: box.y, width: box.width, height: box.height});
               } else { last = box; setTimeout(() => requestAnimationFrame(tick), 50); }
             };
             tick();
           })"""
    )


def storage(page: Page, key: str):
    return page.evaluate("k => localStorage.getItem(k)", key)


def login_form(page: Page, email: str, password: str) -> None:
    # After a client-side navigation the previous page's fields can linger for a moment.
    expect(page.get_by_role("heading", name="Welcome Back")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Login", exact=True).click()


def add_address(session, user, **fields) -> Address:
    data = {"line1": "1 Oxford Street", "city": "Accra", "country": "Ghana", **fields}
    return user_service.add_address(session, user, data)


def insert_order(
    session, user, status: str = "pending", total: str = "12.50", lines=(("Test item", 2, "5.00"),), **fields
) -> Order:
    """An order row written straight into the server's database (the services open their own
    connection to the test process's database, not the server's); ``fields``: other columns
    (payment_status, payment_method, payment_test...)."""
    order = Order(
        user_id=user.id,
        status=status,
        item_count=sum(q for _n, q, _p in lines),
        subtotal=Decimal(total),
        total=Decimal(total),
        **fields,
    )
    session.add(order)
    session.flush()
    for name, quantity, price in lines:
        session.add(
            OrderItem(
                order_id=order.id,
                name=name,
                unit_price=Decimal(price),
                original_price=Decimal(price),
                quantity=quantity,
                line_total=Decimal(price) * quantity,
            )
        )
    session.flush()
    return order
