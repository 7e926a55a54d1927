"""A real HTTP server for the API (Granian, several worker processes) on the test session's
database, for tests that need real sockets and real concurrency rather than the in-process
test client: bursts, memory, headers as a browser-less client sees them."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..conftest import ROOT
from . import servers

GRANIAN = Path(sys.executable).parent / "granian"




@contextmanager
def live_api(workers: int = 2, env: dict[str, str] | None = None, log_name: str = "live-api.log") -> Iterator[tuple[str, int]]:
    """Serve ``discount_deals.web.site:create_app`` on a free port; yields (base URL, server PID)."""
    port = servers.free_port()
    server_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    results = ROOT / "test-results"
    results.mkdir(exist_ok=True)
    log = (results / log_name).open("w")
    process = servers.launch(
        [
            str(GRANIAN), "--interface", "asgi", "--factory", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--log-level", "warning", "discount_deals.web.site:create_app",
        ],
        env=server_env,
        log=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        servers.wait_until_serving(
            process, lambda: servers.answers_ok(f"{url}/api/health/", timeout=2), timeout=60, pause=0.2,
            exited=lambda code: f"the API server exited with {code}; see test-results/{log_name}",
            late=f"the API server did not start; see test-results/{log_name}")
        yield url, process.pid
    finally:
        servers.stop_process_group(process, grace=20)
        log.close()
