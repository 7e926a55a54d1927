"""``python -m discount_deals serve``: the production server (``make run``) and, with ``--dev``, hot reload.

In order, each step before the next:

1. **Check the configuration** (preflight.py): one line per problem, exit status 2.
2. **Migrate**: a cheap revision check when the schema is current.
3. **Seed** the demo catalogue when asked and the catalogue is empty.
4. **Build the frontend only when something it depends on changed**: the app's Python and
   assets, rxconfig.py, reflex.lock, requirements.txt, Reflex's version and the address the
   browser connects to (``DD_PUBLIC_URL``, else ``http://localhost:PORT``). The fingerprint of
   the last build is kept in ``.web/dd-build.json`` together with the built index page's
   modification time, so a build made by anything else (``reflex run``) is never mistaken for
   ours. Instances started together from one checkout build once (a lock file).
5. **Serve** with Granian, as ``reflex run --env prod`` would (page, websocket and ``/api`` on
   one port), plus: a worker that dies is replaced (``respawn_failed_workers``); SIGTERM stops
   accepting connections and gives in-flight requests ``DD_SHUTDOWN_TIMEOUT`` seconds;
   one access-log line per request with status and duration; every log record on one line.
   The message queue's worker runs beside it, started again if it dies (DD_START_WORKER=0: not).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from .preflight import Plan, plan_server
from .reflex_adapter import BUILT_INDEX_PAGE
from ..config.settings import PROJECT_DIR, ServerSettings, frontend_build_environment, get_settings

APP_TARGET = "discount_deals.discount_deals:served"
FRONTEND_INPUTS = ("discount_deals", "assets", "rxconfig.py", "reflex.lock", "requirements.txt")
BUILD_STAMP = ".web/dd-build.json"
BUILD_LOCK = ".web-build.lock"
STATIC_INDEX = BUILT_INDEX_PAGE


def _say(message: str) -> None:
    print(message, flush=True)


def frontend_address(public_url: str, port: int) -> str:
    """Where the browser reaches the server: the public URL, else this port on the browser's own host."""
    return public_url or f"http://localhost:{port}"


def frontend_fingerprint(root: Path = PROJECT_DIR) -> str:
    from .reflex_adapter import reflex_version

    digest = hashlib.sha256()
    digest.update(f"reflex {reflex_version()}\n".encode())
    # Reflex's settings the build reads besides the files (they change what the browser is given).
    for name, value in frontend_build_environment():
        digest.update(f"{name}={value}\n".encode())
    for entry in FRONTEND_INPUTS:
        base = root / entry
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in paths:
            relative = path.relative_to(root)
            if "__pycache__" in relative.parts or relative.suffix == ".pyc" or relative.parts[:2] == ("assets", "external"):
                continue
            digest.update(f"{relative}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _built_index_mtime(root: Path) -> int | None:
    index = root / STATIC_INDEX
    return index.stat().st_mtime_ns if index.exists() else None


def frontend_is_current(fingerprint: str, root: Path = PROJECT_DIR) -> bool:
    try:
        stamp = json.loads((root / BUILD_STAMP).read_text())
    except (OSError, ValueError):
        return False
    mtime = _built_index_mtime(root)
    return mtime is not None and stamp.get("fingerprint") == fingerprint and stamp.get("index_mtime_ns") == mtime


def ensure_frontend(address: str, root: Path = PROJECT_DIR) -> bool:
    """Build the production frontend unless the last build is still current. True when it built."""
    # Written, not read: this is how Reflex's build (the `reflex export` child below, which
    # inherits the environment) is told the address; the fingerprint reads it back through settings.
    os.environ["REFLEX_API_URL"] = address
    os.environ["REFLEX_DEPLOY_URL"] = address
    with (root / BUILD_LOCK).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build per checkout, even with several instances starting
        fingerprint = frontend_fingerprint(root)
        if frontend_is_current(fingerprint, root):
            _say(f"Frontend is up to date (built for {address}): build skipped.")
            return False
        _say(f"Building the frontend for {address} ...")
        result = subprocess.run(
            [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip", "--env", "prod", "--loglevel", "warning"],
            cwd=root,
            check=False,
        )
        if result.returncode != 0:
            raise SystemExit("error: the frontend build failed (see the output above)")
        _add_service_worker()
        (root / BUILD_STAMP).write_text(
            json.dumps({"fingerprint": fingerprint, "index_mtime_ns": _built_index_mtime(root), "address": address})
        )
        _say("Frontend built.")
        return True


def _add_service_worker() -> None:
    """The build's service worker (installable, usable offline: web/service_worker.py)."""
    from .reflex_adapter import frontend_node_modules, static_dir
    from ..web.service_worker import ServiceWorkerError, install

    folder = static_dir()
    if folder is None:
        raise SystemExit("error: the frontend build left no static folder")
    try:
        install(folder, frontend_node_modules())
    except (OSError, ServiceWorkerError) as exc:
        raise SystemExit(f"error: the service worker could not be written: {exc}") from exc


def _seed_if_empty() -> None:
    from sqlmodel import select

    from ..db import session_scope
    from ..models import Product
    from ..services.demo_catalogue import seed_demo

    with session_scope() as session:
        if session.exec(select(Product.id).limit(1)).first() is not None:
            _say("Catalogue already has products: not seeding.")
            return
        result = seed_demo(session)
    _say(f"Demo catalogue: {result.products_created} products in {result.categories_created} categories added.")


def _export_plan(plan: Plan) -> None:
    """Hand the checked, normalised values on to the workers and Reflex.

    Written, not read: worker processes build their settings from the environment they inherit
    (settings.py), and Reflex's config reads REFLEX_DB_URL; this process re-reads them as well."""
    os.environ["REFLEX_DB_URL"] = plan.database_url
    os.environ["DD_DB_POOL_SIZE"] = str(plan.pool_size)
    os.environ["GRANIAN_WORKERS"] = str(plan.workers)
    get_settings.cache_clear()


def prepare(plan: Plan, *, seed: bool) -> None:
    from ..db import dispose_engines
    from .migrations import upgrade_head

    _export_plan(plan)
    _say(upgrade_head().message())
    if seed:
        _seed_if_empty()
    # No connection may cross the fork into the workers.
    dispose_engines()


def serve(*, server: ServerSettings, host: str, port: int, workers: int | None, dev: bool, seed: bool) -> int:
    """Check ``server`` (preflight), migrate, seed, build if needed and serve; the exit status."""
    plan = plan_server(production=not dev, workers=workers, server=server, host=host)
    for line in plan.summary():
        _say(line)
    if plan.problems:
        for problem in plan.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    prepare(plan, seed=seed)
    if dev:
        return _run_dev(host, port)
    address = frontend_address(plan.public_url, port)
    ensure_frontend(address)
    return _run_production(plan, server, host, port)


def _run_dev(host: str, port: int) -> int:
    """``reflex run`` (hot reload) in place of this process: it inherits the environment, the plan
    handed on above included (rxconfig.py puts the venv's Node first on PATH)."""
    command = [sys.executable, "-m", "reflex", "run", "--env", "dev", "--frontend-port", str(port), "--backend-host", host]
    _say("Starting the development server (hot reload): " + " ".join(command[2:]))
    os.execv(sys.executable, command)
    return 0  # not reached


def _run_production(plan: Plan, server: ServerSettings, host: str, port: int) -> int:
    from granian.constants import Interfaces, Loops
    from granian.log import LogLevels
    from granian.server import Server
    from . import reflex_adapter
    from .logs import ACCESS_FORMAT, server_logging_config

    reflex_adapter.serve_built_frontend()  # the frontend is built (step 4); workers only serve it
    if plan.workers > 1:
        # Several workers: each writes its figures here and any of them answers /api/metrics with
        # the sum (prometheus-client reads this before its first import, in the workers too).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = _fresh_metrics_dir(get_settings().var_dir / "metrics")
    # Written for Reflex's config in the workers (page, websocket and /api share one port).
    os.environ.update(REFLEX_FRONTEND_PORT=str(port), REFLEX_BACKEND_PORT=str(port))
    # As `reflex run --env prod` does: import the app once here so forked workers share it and a
    # replacement worker starts in a moment.
    reflex_adapter.choose_worker_start_method()
    server = Server(
        target=APP_TARGET,
        factory=True,
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        loop=Loops.uvloop if uvloop_installed() else Loops.asyncio,
        workers=plan.workers,
        respawn_failed_workers=True,
        respawn_interval=1.0,
        workers_kill_timeout=server.shutdown_timeout,
        log_level=LogLevels.info,
        log_dictconfig=server_logging_config(),
        log_access=server.access_log,
        log_access_format=ACCESS_FORMAT,
    )
    supervisor = _start_message_worker()
    _say(f"Serving on http://{host}:{port} with {plan.workers} worker(s); SIGTERM stops gracefully.")
    try:
        server.serve()
    finally:
        if supervisor is not None:
            supervisor.stop()
    return 0


def uvloop_installed() -> bool:
    """Whether the workers run on uvloop (libuv) rather than asyncio's own loop.

    A requirement everywhere but Windows, which uvloop does not support. Every UI event crosses
    the loop several times (socket reads, thread hand-offs of database work, deltas sent back): on
    asyncio's loop one worker saturated its core at 600 sale-day shoppers (bench/ui_load.py p95
    ~540 ms); on uvloop the same run measured ~210 ms.
    """
    import importlib.util

    return importlib.util.find_spec("uvloop") is not None


def _fresh_metrics_dir(folder: Path) -> str:
    """An empty folder for the workers' metric files (those of an earlier run would be added in)."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()
    return str(folder)


def _start_message_worker():
    """The message queue's worker beside the server, unless DD_START_WORKER=0 (run on its own)."""
    if not get_settings().messages.start_worker:
        _say("Message worker: not started here (DD_START_WORKER=0): run `python -m discount_deals worker`.")
        return None
    from .supervisor import WorkerSupervisor

    _say("Message worker: started beside the server (email, SMS, deal alerts).")
    return WorkerSupervisor().start()
