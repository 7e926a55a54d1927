"""Issue 13 item 1: a burst of logins (or registrations) sent at once over real sockets to a
real multi-process server gets no more checks than the limit allows. Runs on the suite's
database: SQLite by default, PostgreSQL under scripts/with-postgres.sh."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from ..builders.accounts import registration
from ..support.live_api import live_api

BURST = 50


def _post(url: str, body: dict) -> int:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _burst(url: str, bodies: list[dict]) -> Counter:
    """Send every body at the same moment, one thread each."""
    start = threading.Barrier(len(bodies))

    def send(body: dict) -> int:
        start.wait()
        return _post(url, body)

    with ThreadPoolExecutor(len(bodies)) as pool:
        return Counter(pool.map(send, bodies))


@pytest.fixture(scope="module")
def server():
    with live_api(workers=2, env={"DD_REGISTER_MAX_ATTEMPTS": "10"}, log_name="login-burst.log") as (url, _pid):
        yield url


def test_a_burst_of_wrong_passwords_gets_five_checks(server, make_user):
    victim = make_user()
    body = {"email": victim.email, "password": "wrong-guess"}
    statuses = _burst(f"{server}/api/auth/token/", [body] * BURST)
    # 401 means the password was checked; 429 means it was refused before the hash.
    assert statuses == Counter({401: 5, 429: BURST - 5})
    # The right password is refused too now: the window is spent.
    assert _post(f"{server}/api/auth/token/", {"email": victim.email, "password": "secret123"}) == 429


def test_a_burst_with_the_right_password_is_throttled_the_same_way(server, make_user):
    user = make_user()
    statuses = _burst(f"{server}/api/auth/token/", [{"email": user.email, "password": "secret123"}] * 20)
    # A success starts the count over, so several may succeed, but never more than 5 at once
    # were let through to the hash before a success reset the counter: everything is 200 or 429.
    assert set(statuses) <= {200, 429}
    assert statuses[200] >= 5


def test_a_burst_of_registrations_is_limited_per_address(server, clean_db):
    bodies = [registration(email=f"burst{n}@example.com", username=f"burst{n}") for n in range(30)]
    statuses = _burst(f"{server}/api/users/register/", bodies)
    assert statuses[429] == 20
    assert statuses[201] == 10
