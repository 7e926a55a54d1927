"""Shared pieces of the HTTP benchmarks: a production server of our own, shoppers made over the API.

The figures always come from HTTP against a running server. Set-up that the API cannot do
(an admin account) goes through the command line with the server's own environment.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except Exception:
        return False


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PATH=f"{Path(PYTHON).parent}{os.pathsep}{env.get('PATH', '')}",
        REFLEX_USE_NPM="1",
        REFLEX_TELEMETRY_ENABLED="false",
        REFLEX_CHECK_LATEST_VERSION="false",
        PYTHONUNBUFFERED="1",
    )
    env.setdefault("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/")
    env.update(extra or {})
    return env


def cli(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [PYTHON, "-m", "discount_deals", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"discount_deals {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


@dataclass
class Server:
    url: str
    env: dict[str, str]
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    var_dir: Path | None = None
    owned_dirs: list[Path] = field(default_factory=list)

    def pids(self) -> list[int]:
        """The supervisor and its worker processes (for RSS sampling)."""
        if self.process is None:
            return []
        return [self.process.pid, *child_pids(self.process.pid)]


def child_pids(pid: int) -> list[int]:
    found: list[int] = []
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in children:
        found.append(int(child))
        found.extend(child_pids(int(child)))
    return found


def rss_kib(pids: list[int]) -> int:
    """Resident memory of ``pids`` together (KiB), from /proc."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


@contextmanager
def production_server(
    env_extra: dict[str, str] | None = None, *, name: str = "bench", seed: bool = True, timeout_s: float = 900
) -> Iterator[Server]:
    """``python -m discount_deals serve`` (the production launcher) on a free port, its data in a temp folder."""
    var_dir = Path(tempfile.mkdtemp(prefix=f"dd-{name}-"))
    port = free_port()
    env = base_env({"DD_VAR_DIR": str(var_dir), **(env_extra or {})})
    RESULTS.mkdir(parents=True, exist_ok=True)
    log_path = RESULTS / f"{name}-server.log"
    args = [PYTHON, "-m", "discount_deals", "serve", "--host", "127.0.0.1", "--port", str(port)]
    if seed:
        args.append("--seed-demo-if-empty")
    with log_path.open("w") as log:
        process = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"http://127.0.0.1:{port}"
        server = Server(url=url, env=env, process=process, log_path=log_path, var_dir=var_dir)
        try:
            deadline = time.monotonic() + timeout_s
            while not ok(f"{url}/api/health/"):
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited with {process.returncode}; see {log_path}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start in {timeout_s} s; see {log_path}")
                time.sleep(0.5)
            yield server
        finally:
            stop(process)
            shutil.rmtree(var_dir, ignore_errors=True)


@contextmanager
def restart_server(server: Server, timeout_s: float = 900) -> Iterator[Server]:
    """Stop ``server`` and start it again on the same port, database and folders (what an
    operator's restart keeps); the original context still removes its folder at the end."""
    stop(server.process)
    port = server.url.rsplit(":", 1)[1]
    args = [PYTHON, "-m", "discount_deals", "serve", "--host", "127.0.0.1", "--port", port]
    log_path = server.log_path.with_name(server.log_path.stem + "-restarted.log")
    with log_path.open("w") as log:
        process = subprocess.Popen(args, cwd=ROOT, env=server.env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        again = Server(url=server.url, env=server.env, process=process, log_path=log_path, var_dir=server.var_dir)
        try:
            deadline = time.monotonic() + timeout_s
            while not ok(f"{server.url}/api/health/"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the restarted server did not come up; see {log_path}")
                time.sleep(0.5)
            yield again
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


# --- data through the API -------------------------------------------------------------------


def make_admin(server: Server, email: str = "bench-admin@example.com", password: str = "bench-secret-1") -> dict:
    """An admin (command line, the server's environment) and its bearer header."""
    cli(server.env, "create-admin", email, "--password", password)
    response = httpx.post(f"{server.url}/api/auth/token/", json={"email": email, "password": password}, timeout=30)
    response.raise_for_status()
    return {"Authorization": f"Bearer {response.json()['access']}"}


def make_product(server: Server, admin: dict, *, name: str, stock: int, price: str = "12.50") -> str:
    categories = httpx.get(f"{server.url}/api/category/", timeout=30).json()["results"]
    if categories:
        category = categories[0]["id"]
    else:
        created = httpx.post(
            f"{server.url}/api/category/", json={"name": "Bench", "slug": "bench"}, headers=admin, timeout=30
        )
        created.raise_for_status()
        category = created.json()["id"]
    response = httpx.post(
        f"{server.url}/api/products/",
        json={
            "name": name,
            "description": "A product made by a benchmark",
            "brand": "shoprite",
            "price": price,
            "stock": stock,
            "category": category,
            "image_url": "/placeholder.webp",
        },
        headers=admin,
        timeout=30,
    )
    response.raise_for_status()
    return response.json()["data"]["id"]


def register_shopper(client: httpx.Client, url: str, n: int, tag: str, *, address: bool = True) -> dict:
    """Register shopper ``n`` over the API, log in, save an address; returns its bearer header."""
    email = f"{tag}-{n}@example.com"
    password = "shopper-secret-1"
    payload = {
        "first_name": "Ama",
        "last_name": f"Shopper{n}",
        "username": f"{tag}{n}",
        "email": email,
        "password": password,
        "phonenumber": "+233 24 000 0000",
        "date_of_birth": "1990-01-01",
        "gender": "female",
        "role": "customer",
        "metadata": {},
    }
    for attempt in range(5):
        response = client.post(f"{url}/api/users/register/", json=payload)
        if response.status_code != 503:
            break
        time.sleep(1 + attempt)
    response.raise_for_status()
    token = client.post(f"{url}/api/auth/token/", json={"email": email, "password": password})
    token.raise_for_status()
    headers = {"Authorization": f"Bearer {token.json()['access']}"}
    if address:
        saved = client.post(
            f"{url}/api/users/addresses/",
            json={"line1": "1 Oxford Street", "city": "Accra", "country": "Ghana", "is_default": True},
            headers=headers,
        )
        saved.raise_for_status()
    return headers


# --- results ----------------------------------------------------------------------------------


def profile_walks(network, profiles: list, walks: int) -> Iterator[tuple[Any, int]]:
    """(profile, n) for each of ``walks`` walks on each profile in turn, the network switched to
    the profile first; ``n`` counts the walks from 1 across the profiles (a new shopper each)."""
    n = 0
    for profile in profiles:
        network.use(profile)
        for _ in range(walks):
            n += 1
            yield profile, n


def step_table(results: dict, steps: list[str], header: str, cell: Callable[[str, str, dict | None], str]) -> list[str]:
    """A markdown table's lines: a row per step, a column per profile of ``results`` (its
    ``header`` after the profile's name), each cell ``cell(profile, step, its summary or None)``."""
    profiles = list(results)
    lines = ["| step | " + " | ".join(f"{p} {header}" for p in profiles) + " |", "|---|" + "---:|" * len(profiles)]
    for step in steps:
        lines.append(f"| {step} | " + " | ".join(cell(p, step, results[p].get(step)) for p in profiles) + " |")
    return lines


def machine() -> dict:
    load1, load5, load15 = os.getloadavg()
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_at_start": [round(load1, 2), round(load5, 2), round(load15, 2)],
        "note": "shared machine: other engineers' builds and tests run at the same time",
    }


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def write_results(name: str, data: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"{name}-{stamp}.json"
    payload = {"recorded_at": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(), **data}
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path
