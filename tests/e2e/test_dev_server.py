"""Development mode for Python-only teams (issue 12, item 11): a plain ``reflex run`` answers.

Run the way a newcomer would after ``make install``: the venv's ``reflex`` with the machine's
own PATH (whose Node may be too old for Reflex) and nothing else set, on a fresh database. The
venv's Node and npm are found (rxconfig.py), the database is migrated when the backend starts,
and both the hot-reload frontend and the backend answer. Nothing is edited.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..support import servers

STARTUP_TIMEOUT_S = 10 * 60


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except Exception:
        return 0, b""


@pytest.fixture
def dev_server():
    var_dir = Path(tempfile.mkdtemp(prefix="dd-dev-"))
    frontend, backend = servers.free_port(), servers.free_port()
    log_path = ROOT / "test-results" / "dev-server.log"
    log_path.parent.mkdir(exist_ok=True)
    env = {
        "HOME": os.environ.get("HOME", "/root"),
        "PATH": "/usr/local/bin:/usr/bin:/bin",  # not the venv's: rxconfig.py must find its Node itself
        "DD_VAR_DIR": str(var_dir),
        "DD_SECRET_KEY": os.environ["DD_SECRET_KEY"],
        "REFLEX_TELEMETRY_ENABLED": "false",
        "NPM_CONFIG_REGISTRY": os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/"),
    }
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "reflex"), "run", "--frontend-port", str(frontend),
             "--backend-port", str(backend), "--backend-host", "127.0.0.1"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            yield process, f"http://127.0.0.1:{frontend}", f"http://127.0.0.1:{backend}", log_path
        finally:
            servers.stop_process_group(process)
            shutil.rmtree(var_dir, ignore_errors=True)


def test_plain_reflex_run_answers_on_a_fresh_database(dev_server):
    process, frontend, backend, log_path = dev_server
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        page_status, page = _get(f"{frontend}/")
        health_status, health = _get(f"{backend}/api/health/")
        if page_status == 200 and health_status == 200:
            break
        assert process.poll() is None, f"reflex run exited with {process.returncode}:\n{log_path.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"the dev server did not answer; see {log_path}"
        time.sleep(1)
    assert json.loads(health) == {"status": "ok", "database": "ok", "redis": "not configured",
                                  "queue": {"depth": 0, "oldest_seconds": 0.0, "dead": 0}}
    assert b"<html" in page.lower()
    log = log_path.read_text()
    assert "node version" not in log.lower()  # no "Reflex requires node version 22.22.0 or higher"
    assert "reflex db migrate" not in log
