"""A real HTTP server for the API (Granian, several worker processes) on the test session's
database, for tests that need real sockets and real concurrency rather than the in-process
test client: bursts, memory, headers as a browser-less client sees them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..conftest import ROOT
from ..support import servers

GRANIAN = Path(sys.executable).parent / "granian"




def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/health/", timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


@contextmanager
def live_api(workers: int = 2, env: dict[str, str] | None = None, log_name: str = "live-api.log") -> Iterator[tuple[str, int]]:
    """Serve ``discount_deals.web.site:create_app`` on a free port; yields (base URL, server PID)."""
    port = servers.free_port()
    server_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    results = ROOT / "test-results"
    results.mkdir(exist_ok=True)
    log = (results / log_name).open("w")
    process = subprocess.Popen(
        [
            str(GRANIAN), "--interface", "asgi", "--factory", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "--log-level", "warning", "discount_deals.web.site:create_app",
        ],
        cwd=ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _up(url):
            if process.poll() is not None:
                raise RuntimeError(f"the API server exited with {process.returncode}; see test-results/{log_name}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the API server did not start; see test-results/{log_name}")
            time.sleep(0.2)
        yield url, process.pid
    finally:
        servers.stop_process_group(process, grace=20)
        log.close()
