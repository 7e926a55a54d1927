"""Another customer's write while passwords change: is SQLite's one write lock held through argon2?

``--changers`` customers (default 8) change their passwords back and forth as fast as the server
answers (each change checks the current password and hashes the new one; then a login with the
new one, since a change retires every token), while one more
customer saves an address again and again. Printed: that customer's save latency (p50/p95)
alone and beside the password changes, and the changes per second.

It serves the API of ``--tree`` (default: this checkout; pass a ``git worktree`` of an older
commit for a before/after) with granian (the launcher's server) over HTTP on a free port, its SQLite file in a temporary
folder: the figure is about the database lock, which the API alone shows, and it needs no
frontend build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import PYTHON, ROOT, base_env, free_port, machine, ok, percentile, register_shopper, stop, write_results

APP = "from fastapi import FastAPI\nfrom discount_deals.api import create_api\napp = FastAPI()\napp.mount('/api', create_api())\n"
PASSWORDS = ("shopper-secret-1", "shopper-secret-2")


def _serve(tree: Path, var_dir: Path) -> tuple[subprocess.Popen, str]:
    env = base_env({"DD_VAR_DIR": str(var_dir), "DD_REGISTER_MAX_ATTEMPTS": "100000", "PYTHONPATH": str(tree)})
    subprocess.run([PYTHON, "-m", "discount_deals", "migrate"], cwd=tree, env=env, check=True, capture_output=True)
    port = free_port()
    (var_dir / "api_only.py").write_text(APP)
    env["PYTHONPATH"] = f"{tree}{os.pathsep}{var_dir}"
    process = subprocess.Popen([str(Path(PYTHON).parent / "granian"), "--interface", "asgi", "--host", "127.0.0.1",
                                "--port", str(port), "--log-level", "warning", "api_only:app"], cwd=tree, env=env,
                               start_new_session=True, stdout=subprocess.DEVNULL,
                               stderr=(var_dir / "server.log").open("w"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while not ok(f"{url}/api/health/"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the API did not start; see {var_dir / 'server.log'}")
        time.sleep(0.3)
    return process, url


def _me(client: httpx.Client, url: str, headers: dict) -> str:
    return client.get(f"{url}/api/users/me/", headers=headers).json()["id"]


def _change_loop(url: str, email: str, headers: dict, stop_at: float, done: list[int]) -> None:
    """Change the password, then log in with it (a change retires every token), until ``stop_at``."""
    with httpx.Client(timeout=30) as client:
        user_id, turn = _me(client, url, headers), 0
        while time.monotonic() < stop_at:
            old, new = PASSWORDS[turn % 2], PASSWORDS[(turn + 1) % 2]
            answer = client.patch(f"{url}/api/users/users/{user_id}/", headers=headers,
                                  json={"password": new, "current_password": old})
            if answer.status_code != 200:
                raise RuntimeError(f"password change answered {answer.status_code}: {answer.text[:200]}")
            token = client.post(f"{url}/api/auth/token/", json={"email": email, "password": new})
            token.raise_for_status()
            headers = {"Authorization": f"Bearer {token.json()['access']}"}
            done.append(1)
            turn += 1


def _login_loop(url: str, email: str, _headers: dict, stop_at: float, done: list[int]) -> None:
    """Log in again and again with the right password (one argon2 verify each), until ``stop_at``."""
    with httpx.Client(timeout=30) as client:
        while time.monotonic() < stop_at:
            client.post(f"{url}/api/auth/token/", json={"email": email, "password": PASSWORDS[0]}).raise_for_status()
            done.append(1)


def _register_loop(url: str, email: str, _headers: dict, stop_at: float, done: list[int]) -> None:
    """Register new accounts (one argon2 hash each), until ``stop_at``."""
    with httpx.Client(timeout=30) as client:
        while time.monotonic() < stop_at:
            tag = f"{email.split('@')[0]}x{len(done)}x{time.monotonic_ns()}"
            answer = client.post(f"{url}/api/users/register/", json={
                "first_name": "Ama", "last_name": "Busy", "username": tag, "email": f"{tag}@example.com",
                "password": PASSWORDS[0], "phonenumber": "+233 24 000 0000", "date_of_birth": "1990-01-01", "gender": "female",
                "role": "customer", "metadata": {}})
            if answer.status_code != 201:
                raise RuntimeError(f"registration answered {answer.status_code}: {answer.text[:200]}")
            done.append(1)


LOOPS = {"change": _change_loop, "login": _login_loop, "register": _register_loop}


def _saves(url: str, headers: dict, seconds: float) -> list[float]:
    timings: list[float] = []
    with httpx.Client(timeout=30) as client:
        address = client.get(f"{url}/api/users/addresses/", headers=headers).json()
        address_id = (address["results"] if isinstance(address, dict) else address)[0]["id"]
        stop_at = time.monotonic() + seconds
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            answer = client.patch(f"{url}/api/users/addresses/{address_id}/", headers=headers,
                                  json={"line1": f"{len(timings)} Oxford Street"})
            timings.append((time.perf_counter() - started) * 1000)
            if answer.status_code != 200:
                raise RuntimeError(f"address save answered {answer.status_code}: {answer.text[:200]}")
            time.sleep(0.05)
    return timings


def _summary(timings: list[float]) -> dict:
    return {"saves": len(timings), "p50_ms": round(statistics.median(timings), 1),
            "p95_ms": round(percentile(timings, 0.95), 1)}


def run(tree: Path, changers: int, seconds: float, action: str) -> dict:
    var_dir = Path(tempfile.mkdtemp(prefix="dd-password-lock-"))
    process, url = _serve(tree, var_dir)
    try:
        with httpx.Client(timeout=30) as client:
            saver = register_shopper(client, url, 0, "lock")
            people = [register_shopper(client, url, n + 1, "lock", address=False) for n in range(changers)]
        alone = _summary(_saves(url, saver, seconds / 2))
        done: list[int] = []
        stop_at = time.monotonic() + seconds
        threads = [threading.Thread(target=LOOPS[action], args=(url, f"lock-{n + 1}@example.com", headers, stop_at, done))
                   for n, headers in enumerate(people)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # the changes under way
        beside = _summary(_saves(url, saver, seconds - 1))
        for thread in threads:
            thread.join()
        return {"alone": alone, "beside_password_changes": beside, "changes_per_second": round(len(done) / seconds, 1),
                "action": action}
    finally:
        stop(process)
        shutil.rmtree(var_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--label", default="")
    parser.add_argument("--changers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--action", choices=sorted(LOOPS), default="change",
                        help="what the others do: change passwords, log in, or register")
    args = parser.parse_args()
    runs = [run(args.tree.resolve(), args.changers, args.seconds, args.action) for _ in range(args.repeat)]
    for number, result in enumerate(runs, 1):
        print(f"run {number}: alone p50 {result['alone']['p50_ms']} ms; beside {args.changers} doing {args.action} "
              f"p50 {result['beside_password_changes']['p50_ms']} ms, p95 {result['beside_password_changes']['p95_ms']} ms; "
              f"{result['changes_per_second']} {args.action}s/s")
    median = {key: statistics.median(r["beside_password_changes"][key] for r in runs) for key in ("p50_ms", "p95_ms")}
    print(f"median of {len(runs)}: beside the changes p50 {median['p50_ms']} ms, p95 {median['p95_ms']} ms")
    name = f"password_lock-{args.action}{'-' + args.label if args.label else ''}"
    path = write_results(name, {"tree": str(args.tree), "commit": _commit(args.tree), "changers": args.changers,
                                "seconds": args.seconds, "runs": runs, "median": median, "machine": machine()})
    print(f"written to {path}")


def _commit(tree: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True,
                          env={**os.environ}).stdout.strip()


if __name__ == "__main__":
    main()
