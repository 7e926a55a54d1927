"""Account writes from many clients at once: every request gets its normal answer, never a
"database is locked" 503 (on SQLite a read-then-write transaction would fail when another
connection wrote in between)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from ..builders.accounts import auth_headers
from ..builders.accounts import PASSWORD, login, registration

WORKERS = 6
ROUNDS = 8


def test_concurrent_account_writes_all_succeed(api_app, make_user):
    users = [make_user() for _ in range(WORKERS)]

    def work(n: int) -> list[tuple[str, int]]:
        user, headers = users[n], auth_headers(users[n])
        statuses = []
        with TestClient(api_app) as client:
            for r in range(ROUNDS):
                address = {"line1": f"{r} Road", "city": "Accra", "country": "Ghana", "is_default": r % 2 == 0}
                statuses.append(("address", client.post("/api/users/addresses/", json=address, headers=headers)))
                changes = {"first_name": f"Name{r}"}
                statuses.append(("user", client.patch(f"/api/users/users/{user.id}/", json=changes, headers=headers)))
                payload = registration(email=f"w{n}r{r}@example.com", username=f"w{n}r{r}")
                statuses.append(("register", client.post("/api/users/register/", json=payload)))
                statuses.append(("login", login(client, user.email, PASSWORD if r % 2 else "wrong")))
                if r % 2:
                    refresh = statuses[-1][1].json()["refresh"]
                    statuses.append(("logout", client.post("/api/auth/logout/", json={"refresh": refresh})))
        return [(name, response.status_code) for name, response in statuses]

    with ThreadPoolExecutor(WORKERS) as pool:
        results = [item for items in pool.map(work, range(WORKERS)) for item in items]
    expected = {"address": {201}, "user": {200}, "register": {201}, "login": {200, 401}, "logout": {200}}
    assert [item for item in results if item[1] not in expected[item[0]]] == []
    assert sum(1 for name, status in results if name == "login" and status == 401) == WORKERS * ROUNDS // 2
