"""``GET /api/metrics`` (issue 23): Prometheus' text format, for this machine or a bearer token."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from discount_deals.services.messages.outbox import Draft, queue_message
from discount_deals.config.settings import get_settings

LOOPBACK = ("127.0.0.1", 50123)


@pytest.fixture
def local(api_app, clean_db):
    """A client on this machine (a loopback peer), as a scraper beside the server is."""
    with TestClient(api_app, base_url="http://testserver", client=LOOPBACK, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def token(monkeypatch):
    monkeypatch.setenv("DD_METRICS_TOKEN", "scrape-secret-123")
    get_settings.cache_clear()
    yield "scrape-secret-123"
    monkeypatch.delenv("DD_METRICS_TOKEN")
    get_settings.cache_clear()


def _values(text: str) -> dict[str, float]:
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            found[name] = float(value)
    return found


def test_this_machine_reads_the_figures_in_prometheus_text_format(local):
    assert local.get("/api/products/").status_code == 200
    local.get("/api/products/00000000-0000-0000-0000-000000000000")  # 404: same route label
    answer = local.get("/api/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    text = answer.text
    for name in ("dd_ui_event_seconds", "dd_http_request_seconds", "dd_ui_connected_tabs", "dd_ui_tab_states",
                 "dd_ui_state_bytes", "dd_db_pool_in_use", "dd_db_pool_size", "dd_message_queue_depth",
                 "dd_message_queue_oldest_seconds"):
        assert f"# TYPE {name} " in text, name
    values = _values(text)
    assert values['dd_http_request_seconds_count{method="GET",route="/api/products/",status="200"}'] >= 1
    assert values['dd_http_request_seconds_count{method="GET",route="/api/products/{product_id}",status="404"}'] >= 1
    assert values["dd_db_pool_size"] == get_settings().db_pool_size


def test_the_queue_gauges_follow_the_outbox(local, session, make_user):
    user = make_user()
    queue_message(session, Draft(channel="email", kind="order_placed", recipient=user.email, subject="Order",
                                 text="Your order", user_id=user.id))
    session.commit()
    assert _values(local.get("/api/metrics").text)["dd_message_queue_depth"] == 1


@pytest.mark.parametrize("headers", [{"X-Forwarded-For": "203.0.113.9"}, {"Forwarded": "for=203.0.113.9"},
                                     {"X-Real-IP": "203.0.113.9"}])
def test_a_request_through_a_proxy_is_not_this_machine(local, headers):
    """Behind nginx every request comes from loopback; the proxy's header says it is someone else's."""
    answer = local.get("/api/metrics", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert "dd_" not in answer.text


def test_other_addresses_need_the_bearer_token(client, token):
    assert client.get("/api/metrics").status_code == 401
    assert client.get("/api/metrics", headers={"Authorization": "Bearer wrong-secret"}).status_code == 401
    assert client.get("/api/metrics", headers={"Authorization": "Basic c2NyYXBlOnNlY3JldA=="}).status_code == 401
    answer = client.get("/api/metrics/", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200 and "dd_http_request_seconds" in answer.text


def test_without_a_token_configured_only_this_machine_may_read(client):
    assert get_settings().ui.metrics_token == ""
    answer = client.get("/api/metrics", headers={"Authorization": "Bearer "})
    assert answer.status_code == 401
    assert answer.json()["detail"] == "Metrics are for this machine or a bearer token (DD_METRICS_TOKEN)."


def test_made_up_methods_share_one_label(local):
    """Issue 32: 2,000 odd method names made 2,000 label sets (241 KB → 9.4 MB of metrics)."""
    local.get("/api/products/")
    before = len(local.get("/api/metrics").content)
    for number in range(200):
        local.request(f"PROBE{number}", "/api/products/")
        local.request(f"X{number}", "/no-such-page")
    text = local.get("/api/metrics").text
    assert "PROBE" not in text and 'method="X' not in text
    values = _values(text)
    assert values['dd_http_request_seconds_count{method="other",route="/api/products/",status="405"}'] >= 200
    assert sum(value for key, value in values.items()
               if key.startswith('dd_http_request_seconds_count{method="other",route="page"')) >= 200
    assert len(text) < before + 20_000  # a few new series, not 400
