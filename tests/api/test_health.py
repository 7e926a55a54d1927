"""Health and API-wide behaviour of the ASGI app."""

import os
import shutil
import socket
import subprocess
import time

import pytest

from discount_deals.config.settings import get_settings
from ..support import servers


# The message queue (issue 22): nothing waiting in these tests.
EMPTY_QUEUE = {"depth": 0, "oldest_seconds": 0.0, "dead": 0}

def test_health_answers_with_and_without_slash(client):
    for path in ("/api/health", "/api/health/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "database": "ok", "redis": "not configured", "queue": EMPTY_QUEUE}
        assert response.headers["cache-control"] == "no-store"


def test_liveness_answers_without_touching_anything(client):
    for path in ("/api/live", "/api/live/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "alive"}




@pytest.fixture
def redis_url_setting(monkeypatch):
    def use(url: str) -> None:
        monkeypatch.setenv("REFLEX_REDIS_URL", url)
        get_settings.cache_clear()

    yield use
    monkeypatch.delenv("REFLEX_REDIS_URL", raising=False)
    get_settings.cache_clear()


def test_health_is_503_when_the_configured_redis_does_not_answer(client, redis_url_setting):
    redis_url_setting(f"redis://127.0.0.1:{servers.free_port()}/0")
    response = client.get("/api/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "ok", "redis": "unreachable", "queue": EMPTY_QUEUE}


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_health_follows_redis_down_and_back_up(client, redis_url_setting, tmp_path):
    port = servers.free_port()
    command = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", str(tmp_path)]

    def start() -> subprocess.Popen:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return process
            except OSError:
                time.sleep(0.05)
        process.kill()
        raise RuntimeError("redis-server did not start")

    redis_url_setting(f"redis://127.0.0.1:{port}/0")
    server = start()
    try:
        assert client.get("/api/health/").json() == {"status": "ok", "database": "ok", "redis": "ok", "queue": EMPTY_QUEUE}
        server.terminate()
        server.wait(timeout=10)
        down = client.get("/api/health/")
        assert (down.status_code, down.json()["redis"]) == (503, "unreachable")
        server = start()  # same address: the app's client reconnects by itself
        up = client.get("/api/health/")
        assert (up.status_code, up.json()) == (200, {"status": "ok", "database": "ok", "redis": "ok", "queue": EMPTY_QUEUE})
    finally:
        server.terminate()
        server.wait(timeout=10)


def _health_with_database(client, monkeypatch, url: str):
    """``/api/health/`` answered while the app is pointed at ``url``; the suite's database (set
    when the suite runs on PostgreSQL) is back before the test's other fixtures tear down."""
    suite_database = os.environ.get("REFLEX_DB_URL")
    monkeypatch.setenv("REFLEX_DB_URL", url)
    get_settings.cache_clear()
    try:
        return client.get("/api/health/")
    finally:
        if suite_database is None:
            monkeypatch.delenv("REFLEX_DB_URL")
        else:
            monkeypatch.setenv("REFLEX_DB_URL", suite_database)
        get_settings.cache_clear()


def test_health_is_503_when_the_database_does_not_answer(client, monkeypatch):
    url = f"postgresql+psycopg://nobody@127.0.0.1:{servers.free_port()}/none"
    response = _health_with_database(client, monkeypatch, url)
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unreachable", "redis": "not configured", "queue": None}


def test_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_openapi_document_is_served(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert "/health/" in response.json()["paths"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200
    # Swagger UI comes from local files (the machine may have no internet).
    assert "/api/docs-assets/swagger-ui-bundle.js" in docs.text
    assert client.get("/api/docs-assets/swagger-ui-bundle.js").status_code == 200


def test_openapi_documents_400_not_422(client):
    document = client.get("/api/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], f"{method} {path}"
    register = document["paths"]["/users/register/"]["post"]
    assert "400" in register["responses"]


def test_health_is_503_when_the_database_has_no_schema(client, monkeypatch, tmp_path):
    response = _health_with_database(client, monkeypatch, f"sqlite:///{tmp_path / 'never-migrated.db'}")
    assert response.status_code == 503
    assert response.json()["database"] == "not migrated"
