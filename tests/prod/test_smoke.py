"""Production smoke test (issue 12, item 9): a shopper and an admin through nginx (TLS) in front of two
instances sharing PostgreSQL and Redis, while a worker is killed and Redis goes down and comes back.

One journey, in order: the proxy and public URLs → register → log in → cart (across reloads that
land on any worker of any instance) → a worker killed with SIGKILL, shopping goes on → checkout →
Redis stopped (health 503) and started (health 200), shopping goes on → PostgreSQL stopped and
started (the same) → an admin's bulk upload with its progress → an instance stopped with SIGTERM
finishes the request it is serving.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import time
import urllib.error
import urllib.request

import psycopg
from playwright.sync_api import Browser, Page, expect

from .conftest import Stack

PASSWORD = "deals-2026"
_TLS = ssl.create_default_context()
_TLS.check_hostname = False
_TLS.verify_mode = ssl.CERT_NONE  # the test's self-signed certificate


def get(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10, context=_TLS) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def health(stack: Stack) -> tuple[int, dict]:
    """/api/health/'s status and its database and Redis checks (the message queue's figures,
    added by issue 22, are checked in tests/api)."""
    status, _headers, body = get(f"{stack.public_url}/api/health/")
    checks = json.loads(body)
    return status, {key: checks[key] for key in ("status", "database", "redis") if key in checks}


def wait_for(condition, timeout: float = 60, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def rows(stack: Stack, query: str, *params) -> list[tuple]:
    with psycopg.connect(stack.database_url) as connection:
        return connection.execute(query, params).fetchall()


def toast(page: Page, text: str):
    return page.locator("[data-sonner-toast]").filter(has_text=text).first


def add_to_cart(page: Page, name: str) -> None:
    page.goto(f"/products?search={name}")
    page.locator("main article").filter(has_text=name).get_by_role("button", name="Add to Cart").click()
    expect(toast(page, f"{name} has been added to your cart.")).to_be_visible()


def checkout(page: Page) -> str:
    """From a filled cart to the placed order's page; returns the order id.

    The one place that knows the checkout screens: the /checkout page with its defaults (the
    default address, home delivery, cash on delivery).
    """
    page.goto("/cart")
    page.get_by_role("button", name="Proceed to Checkout").click()
    page.wait_for_url(re.compile(r"/checkout$"))
    expect(page.get_by_role("radio", name=re.compile("Cash on delivery"))).to_be_checked()
    page.get_by_role("button", name="Place order").click()
    expect(toast(page, "Order placed")).to_be_visible()
    page.wait_for_url(re.compile(r"/orders/[0-9a-f-]{36}$"))
    return page.url.rsplit("/", 1)[-1]


def test_the_proxy_and_the_public_address(stack: Stack):
    status, body = health(stack)
    assert (status, body) == (200, {"status": "ok", "database": "ok", "redis": "ok"})
    assert get(f"{stack.public_url}/api/live")[0] == 200
    # Plain HTTP only redirects to HTTPS.
    request = urllib.request.Request(f"{stack.http_url}/products")
    opener = urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,),
                                              {"redirect_request": lambda *a, **k: None}))
    try:
        opener.open(request, timeout=10)
        raise AssertionError("expected a redirect")
    except urllib.error.HTTPError as error:
        assert error.code == 301
        assert error.headers["Location"].startswith("https://")
    # A Host the shop does not serve is refused (issue 21's trusted hosts), through nginx too.
    status, _h, body = get(f"{stack.public_url}/api/products/?page_size=2", headers={"Host": "evil.example"})
    assert (status, body) == (400, b"Invalid host header")
    # Absolute URLs are the public ones.
    status, _h, body = get(f"{stack.public_url}/api/products/?page_size=2")
    page = json.loads(body)
    assert status == 200
    assert page["next"].startswith(f"{stack.public_url}/api/products/?")
    assert page["results"][0]["image_url"].startswith(stack.public_url)
    # Both instances answer behind nginx with the same shared state (database); the second one
    # found the schema current and the frontend already built for the public address.
    for instance in stack.instances:
        assert get(f"{instance.url}/api/health/")[0] == 200
    second = stack.instances[1].log()
    assert "Database is up to date" in second
    assert f"Frontend is up to date (built for {stack.public_url}): build skipped." in second


def test_shopping_survives_a_dead_worker_and_a_redis_restart(stack: Stack, browser: Browser):
    context = browser.new_context(base_url=stack.public_url, ignore_https_errors=True,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    handle = f"smoke{os.getpid()}{int(time.time())}"
    email = f"{handle}@example.com"
    products = rows(stack, "SELECT name FROM product WHERE stock > 5 AND status = 'active' ORDER BY name LIMIT 2")
    first, second = products[0][0], products[1][0]

    # Register and log in through nginx (the websocket goes through the proxy: DD_PUBLIC_URL).
    page.goto("/register")
    page.get_by_label("First Name").fill("Kojo")
    page.get_by_label("Last Name").fill("Smoke")
    page.get_by_label("Username").fill(handle)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Phone Number").fill("+233 20 555 0199")
    page.get_by_label("Date of Birth").fill("1990-05-01")
    page.get_by_label("Gender").select_option("male")
    page.get_by_role("button", name="Create Account").click()
    expect(toast(page, "Account created!")).to_be_visible()  # and signed in at once (issue 32)
    expect(page.get_by_text("Hi, Kojo", exact=True)).to_be_visible()

    # The cart follows the shopper across reloads, whichever worker and instance each lands on.
    add_to_cart(page, first)
    for _ in range(4):
        page.goto("/cart")
        # Up to Reflex's Redis lock expiry (10 s): once in nine runs here, a reload 0.3 s after
        # the previous one showed "Loading cart..." past 5 s, as if the closed page's on-load
        # event still held the tab's state lock in Redis (not reproduced since; see the note of
        # 2026-11-26).
        expect(page.get_by_role("heading", name="Shopping Cart")).to_be_visible(timeout=15_000)
        expect(page.locator("main").get_by_text(first, exact=True)).to_be_visible()

    # A worker dies mid-way: it is replaced, and the shopper's tab reconnects and goes on.
    victim_instance = stack.instances[0]
    victims = victim_instance.workers()
    assert len(victims) == 2, victim_instance.log()[-2000:]
    os.kill(victims[0], signal.SIGKILL)
    wait_for(lambda: len(victim_instance.workers()) == 2 and victims[0] not in victim_instance.workers(),
             what="the worker to be replaced")
    assert "Unexpected exit from worker-1" in victim_instance.log()
    page.get_by_role("button", name="Refresh Cart").click()  # an event on the open tab's websocket
    expect(page.locator("main").get_by_text(first, exact=True)).to_be_visible()
    add_to_cart(page, second)

    # Checkout (the shipping address through the API, as the existing client would save it).
    token = page.evaluate("() => localStorage.getItem('accessToken')")
    saved = urllib.request.Request(
        f"{stack.public_url}/api/users/addresses/", method="POST",
        data=json.dumps({"line1": "3 Ring Road", "city": "Accra", "country": "Ghana", "is_default": True}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(saved, timeout=10, context=_TLS) as response:
        assert response.status == 201
    order_id = checkout(page)
    expect(page.get_by_text(first).first).to_be_visible()
    ordered = rows(stack, 'SELECT o.status, count(i.id) FROM "order" o JOIN order_item i ON i.order_id = o.id '
                          "WHERE o.id = %s GROUP BY o.status", order_id)
    assert ordered == [("pending", 2)]

    # Redis goes down: readiness says so at once (503) ... and recovers by itself when it is back.
    stack.redis.stop()
    wait_for(lambda: health(stack)[0] == 503, timeout=30, what="health 503")
    assert health(stack)[1]["redis"] == "unreachable"
    stack.redis.start()
    wait_for(lambda: health(stack) == (200, {"status": "ok", "database": "ok", "redis": "ok"}), timeout=60,
             what="health 200 after Redis restarted")
    # Sessions in Redis were lost with it; the browser still holds its tokens and carries on.
    page.goto("/")
    expect(page.get_by_text("Hi, Kojo", exact=True)).to_be_visible()
    add_to_cart(page, first)
    page.goto("/orders")
    expect(page.get_by_text(f"Order #{order_id[:8]}")).to_be_visible()
    context.close()
    # The browser's websockets went through nginx (the frontend was built for DD_PUBLIC_URL);
    # nginx logs a websocket when it closes.
    upgraded = re.compile(r'"GET /_event/\?[^"]*transport=websocket[^"]*" 101 ')
    access_log = stack.nginx_folder / "access.log"
    wait_for(lambda: upgraded.search(access_log.read_text()), timeout=15,
             what=f"nginx to log the websocket: {[line for line in access_log.read_text().splitlines() if '_event' in line][-3:]}")


def test_health_follows_the_database_down_and_back(stack: Stack):
    stack.postgres.stop()
    try:
        wait_for(lambda: health(stack)[0] == 503, timeout=30, what="health 503 with PostgreSQL stopped")
        assert health(stack)[1]["database"] == "unreachable"
        status, _headers, body = get(f"{stack.public_url}/api/products/?page_size=1")
        assert status == 503 and b"Traceback" not in body  # a clear refusal, not a 500
    finally:
        stack.postgres.start()
    wait_for(lambda: health(stack) == (200, {"status": "ok", "database": "ok", "redis": "ok"}), timeout=60,
             what="health 200 after PostgreSQL restarted")
    assert get(f"{stack.public_url}/api/products/?page_size=1")[0] == 200


def test_admin_bulk_upload_with_progress(stack: Stack, browser: Browser):
    email = f"smoke-admin-{os.getpid()}@example.com"
    stack.cli("create-admin", email, "--password", PASSWORD)
    category = rows(stack, "SELECT name FROM category ORDER BY name LIMIT 1")[0][0]
    names = [f"Smoke Bulk {os.getpid()} {n}" for n in (1, 2)]
    context = browser.new_context(base_url=stack.public_url, ignore_https_errors=True,
                                  viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto("/login?redirectTo=/admin")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Login", exact=True).click()
    expect(page.get_by_role("heading", name="Admin Dashboard")).to_be_visible()
    page.get_by_role("tab", name="Bulk Upload Products", exact=True).click()
    page.evaluate(
        "() => { window.__stages = []; new MutationObserver(() => {"
        " const el = document.querySelector('[data-testid=\"products-progress\"] span');"
        " const t = el && el.textContent; if (t && window.__stages.at(-1) !== t) window.__stages.push(t);"
        " }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"
    )
    payload = [{"name": name, "description": "Smoke row", "price": "4.50", "category": category,
                "image_url": "/placeholder.webp"} for name in names]
    page.get_by_label("JSON Data").fill(json.dumps(payload))
    page.get_by_role("button", name="Upload Products").click()
    expect(page.get_by_test_id("products-progress")).to_contain_text("Complete!")
    expect(page.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    expect(page.get_by_test_id("products-result").get_by_text("Upload completed: 2 created, 0 already exist",
                                                               exact=True)).to_be_visible()
    assert page.evaluate("window.__stages") == [
        "Validating products...", "Resolving category names...", "Uploading to server...", "Complete!"
    ]
    assert sorted(r[0] for r in rows(stack, "SELECT name FROM product WHERE name = ANY(%s)", names)) == names
    context.close()


def test_sigterm_lets_the_request_in_flight_finish(stack: Stack):
    instance = stack.instances[1]
    body = json.dumps({"email": "nobody@example.com", "password": "not-this-one"}).encode()
    connection = socket.create_connection(("127.0.0.1", instance.port), timeout=30)
    # The instance's own address as Host: it refuses names it does not serve (issue 21).
    connection.sendall(b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body[:10])
    time.sleep(0.3)
    os.kill(instance.process.pid, signal.SIGTERM)  # the launcher only, as systemd or docker stop would
    time.sleep(1.0)
    connection.sendall(body[10:])
    response = b""
    while chunk := connection.recv(65536):
        response += chunk
    connection.close()
    assert response.startswith(b"HTTP/1.1 401"), response[:200]
    assert instance.process.wait(timeout=30) == 0
    assert "Granian shutdown completed" in instance.log()
    # nginx sends everyone to the instance that is left.
    wait_for(lambda: health(stack)[0] == 200, timeout=30, what="health through the remaining instance")
