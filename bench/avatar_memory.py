"""Memory of the API worker when 8 worst-case profile pictures arrive at once (issue 13 item 5).

Starts the API (Granian, one worker) on a temporary SQLite database, makes 8 customers, warms
the worker with one upload, then sends 8 uploads at the same moment over real sockets: four
4096 × 3072 palette PNGs with transparency (decoded whole, then RGBA) and four 4096 × 3072
progressive JPEGs (every DCT coefficient kept), the most expensive pictures the server accepts.
It also sends the probe's 6300 × 6300 PNG, which must be refused from its header. Reads the
worker's RSS before, its peak (VmHWM, reset first) and its RSS 3 s after, and writes
bench/results/avatar_memory.json and .md.

    .venv/bin/python bench/avatar_memory.py [--runs 3]
    scripts/with-postgres.sh .venv/bin/python bench/avatar_memory.py   # on PostgreSQL

On SQLite, writing requests queue for their turn (api/admission.py), so uploads are decoded one
after another; on PostgreSQL they run concurrently and the decode slots (2) are the bound.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _harness import free_port

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
MB = 1024 * 1024


def _encode(image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def payloads() -> tuple[list[bytes], bytes]:
    from PIL import Image

    palette = Image.new("P", (4096, 3072), 3)
    palette.putpalette([n % 256 for n in range(768)])
    png = _encode(palette, "PNG", transparency=0, optimize=True)
    jpeg = _encode(Image.new("RGB", (4096, 3072), (90, 140, 200)), "JPEG", progressive=True, subsampling=0)
    probe = _encode(Image.new("L", (6300, 6300)), "PNG", optimize=True)
    return [png, jpeg] * 4, probe


def _multipart(data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="profile_image"; filename="a.png"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def _request(url: str, method: str, token: str, data: bytes | None = None, content_type: str | None = None):
    headers = {"Authorization": f"Bearer {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def _worker_pid(parent: int) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise RuntimeError("no worker process")




def run(runs: int) -> dict:
    var_dir = Path(tempfile.mkdtemp(prefix="dd-avatar-bench-"))
    env = {**os.environ, "DD_VAR_DIR": str(var_dir), "DD_SECRET_KEY": "bench-secret-" + "x" * 40}
    env.pop("REFLEX_DB_URL", None)
    if os.environ.get("DD_TEST_DB_URL"):  # scripts/with-postgres.sh
        env["REFLEX_DB_URL"] = os.environ["DD_TEST_DB_URL"]
    os.environ.update({k: env[k] for k in ("DD_VAR_DIR", "DD_SECRET_KEY")})
    os.environ.pop("REFLEX_DB_URL", None)
    if "REFLEX_DB_URL" in env:
        os.environ["REFLEX_DB_URL"] = env["REFLEX_DB_URL"]
    subprocess.run([sys.executable, "-m", "discount_deals", "migrate"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    from sqlmodel import select

    from discount_deals.db import session_scope
    from discount_deals.models import Profile, Role
    from discount_deals.services.auth.tokens import create_access_token
    from discount_deals.services.users import add_user

    users = []
    with session_scope() as session:
        for n in range(9):
            user = add_user(session, email=f"bench{n}@example.com", password="secret123", username=f"bench{n}",
                            role=Role.CUSTOMER)
            profile = session.exec(select(Profile).where(Profile.user_id == user.id)).one()
            users.append((create_access_token(user), profile.id))
    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "granian"), "--interface", "asgi", "--factory", "--host", "127.0.0.1",
         "--port", str(port), "--workers", "1", "--log-level", "warning", "discount_deals.web.site:create_app"],
        cwd=ROOT, env=env, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/api"
    samples, worst, probe = [], *payloads()
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/health/", timeout=1)
                break
            except Exception:
                time.sleep(0.1)
        worker = _worker_pid(server.pid)

        def upload(n: int, data: bytes):
            token, profile_id = users[n]
            body, content_type = _multipart(data)
            return _request(f"{base}/users/profiles/{profile_id}/", "PATCH", token, body, content_type)

        assert upload(8, worst[0])[0] == 200  # warm-up: imports, first decode
        refused = upload(8, probe)
        for _ in range(runs):
            time.sleep(1)
            before = _status(worker, "VmRSS")
            Path(f"/proc/{worker}/clear_refs").write_text("5")
            barrier = threading.Barrier(8)

            def at_once(n: int, barrier: threading.Barrier = barrier):
                barrier.wait()
                return upload(n, worst[n])

            started = time.perf_counter()
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(at_once, range(8)))
            elapsed = time.perf_counter() - started
            peak = _status(worker, "VmHWM")
            time.sleep(3)
            after = _status(worker, "VmRSS")
            assert [status for status, _ in answers] == [200] * 8, answers
            samples.append({
                "rss_before_mb": round(before / MB, 1),
                "peak_growth_mb": round((peak - before) / MB, 1),
                "kept_after_3s_mb": round((after - before) / MB, 1),
                "seconds_for_8": round(elapsed, 2),
            })
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return {
        "database": "postgresql" if "REFLEX_DB_URL" in env else "sqlite",
        "what": "8 concurrent worst-case profile picture uploads to one API worker (Granian), RSS of the worker",
        "payloads": "4 × 4096x3072 palette PNG with transparency, 4 × 4096x3072 progressive JPEG (4:4:4)",
        "probe_6300x6300_png": {"status": refused[0], "answer": refused[1]},
        "runs": samples,
        "median_peak_growth_mb": statistics.median(s["peak_growth_mb"] for s in samples),
        "median_kept_mb": statistics.median(s["kept_after_3s_mb"] for s in samples),
        "limit_mb": 300,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    result = run(parser.parse_args().runs)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "avatar_memory.json"
    recorded = json.loads(path.read_text()) if path.exists() else {}
    if "database" in recorded or "runs" in recorded:  # the older single-result layout
        recorded = {}
    recorded[result["database"]] = result
    path.write_text(json.dumps(recorded, indent=2) + "\n")
    sections = []
    for database, entry in sorted(recorded.items()):
        rows = "\n".join(
            f"| {n + 1} | {s['rss_before_mb']} | {s['peak_growth_mb']:+} | {s['kept_after_3s_mb']:+} | {s['seconds_for_8']} |"
            for n, s in enumerate(entry["runs"])
        )
        sections.append(
            f"## {database}\n\n"
            "| run | RSS before (MB) | peak growth (MB) | kept after 3 s (MB) | seconds for 8 |\n|---|---|---|---|---|\n"
            f"{rows}\n\nMedian peak growth: **{entry['median_peak_growth_mb']:+} MB** (limit +300 MB); "
            f"median kept: {entry['median_kept_mb']:+} MB.\n"
        )
    probe = result["probe_6300x6300_png"]
    (RESULTS / "avatar_memory.md").write_text(
        "# Avatar memory (issue 13 item 5)\n\n"
        f"{result['what']}.\n\nPayloads: {result['payloads']}. On SQLite writes queue for their turn "
        "(one upload decoded at a time); on PostgreSQL two are decoded at once (the decode slots).\n\n"
        + "\n".join(sections)
        + f"\nThe probe's 6300 × 6300 PNG: {probe['status']} {probe['answer'].get('detail')}\n"
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
