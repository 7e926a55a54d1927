"""The browser the Playwright suites launch: Debian's Chromium, with what it needs in a container."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"


def chromium_launch_args(launch_args: dict) -> dict:
    """pytest-playwright's ``browser_type_launch_args`` pointed at Debian's Chromium (the run
    stops with a hint when it is missing)."""
    if not Path(CHROMIUM).exists():
        pytest.exit("Debian chromium is missing: run 'make test' as root or 'apt-get install -y chromium'", 2)
    return {
        **launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
        ],
    }
