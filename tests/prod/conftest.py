"""The production smoke test's stack: PostgreSQL + Redis + two app instances (two workers each)
behind nginx with TLS, all on free loopback ports in throwaway folders (``make test-prod``).

Set ``DD_PROD_SMOKE=1`` to run it (``make test-prod`` does): it rebuilds the checkout's frontend
for nginx's address, so it must not run in the same pytest session as tests/e2e.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..conftest import ROOT, TEST_SECRET
from ..support import servers
from ..support.browser import chromium_launch_args

STARTUP_TIMEOUT_S = 15 * 60

if os.environ.get("DD_PROD_SMOKE") != "1":
    collect_ignore_glob = ["test_*.py"]


@dataclass
class Instance:
    name: str
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def workers(self) -> list[int]:
        """PIDs of the Granian workers: the launcher's children but its message worker
        (``python -m discount_deals worker``, started beside the server since issue 22)."""
        if self.process is None:
            return []
        try:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        except OSError:
            return []
        return [int(pid) for pid in children if not _is_message_worker(int(pid))]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _is_message_worker(pid: int) -> bool:
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"worker" in arguments


@dataclass
class Stack:
    public_url: str
    http_url: str
    database_url: str
    postgres: servers.Postgres
    redis: servers.Redis
    instances: list[Instance] = field(default_factory=list)
    nginx_folder: Path | None = None

    def cli(self, *args: str) -> str:
        result = subprocess.run([sys.executable, "-m", "discount_deals", *args], cwd=ROOT,
                                env=self.instances[0].env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout


def _start(instance: Instance) -> None:
    log = instance.log_path.open("w")
    instance.process = servers.launch(
        [sys.executable, "-m", "discount_deals", "serve", "--host", "127.0.0.1", "--port", str(instance.port),
         "--seed-demo-if-empty"],
        env=instance.env, log=log,
    )
    servers.wait_until_serving(
        instance.process,
        lambda: servers.answers_ok(f"{instance.url}/api/health/") and servers.answers_ok(f"{instance.url}/"),
        timeout=STARTUP_TIMEOUT_S, pause=0.5,
        exited=lambda code: f"{instance.name} exited with {code}:\n{instance.log()[-3000:]}",
        late=f"{instance.name} did not start in time; see {instance.log_path}")


def stop(instance: Instance) -> None:
    if instance.process is not None:
        servers.stop_process_group(instance.process, grace=45)


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    for tool in ("redis-server", servers.NGINX, "openssl"):
        if shutil.which(tool) is None and not Path(tool).exists():
            pytest.exit(f"{tool} is missing: run 'make prod-deps' (as root it installs the Debian packages)", 2)
    results = ROOT / "test-results"
    results.mkdir(exist_ok=True)
    with ExitStack() as cleanup:
        database = cleanup.enter_context(servers.postgres())
        redis = cleanup.enter_context(servers.redis())
        folder = Path(tempfile.mkdtemp(prefix="dd-prod-"))
        os.chmod(folder, 0o755)
        cleanup.callback(shutil.rmtree, folder, ignore_errors=True)
        https_port, http_port = servers.free_port(), servers.free_port()
        public_url = f"https://127.0.0.1:{https_port}"
        media = folder / "media"
        media.mkdir()
        base = {**os.environ}
        base.pop("DD_PASSWORD_HASHING", None)  # a shop behind nginx: production's hashing
        base.pop("DD_TEST_DB_URL", None)
        base.update(
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}",
            REFLEX_USE_NPM="1", REFLEX_TELEMETRY_ENABLED="false", REFLEX_CHECK_LATEST_VERSION="false",
            PYTHONUNBUFFERED="1",
            REFLEX_DB_URL=database.url,  # plain postgresql://: the launcher maps it to psycopg 3
            REFLEX_REDIS_URL=redis.url,
            DD_SECRET_KEY=TEST_SECRET,
            DD_PUBLIC_URL=public_url,
            DD_TRUSTED_PROXY_HOPS="1",
            DD_ALLOW_FAKE_PAYMENTS="1",  # behind nginx the fake provider is refused unless said so
            DD_INSTANCES="2",
            GRANIAN_WORKERS="2",
            DD_MEDIA_DIR=str(media),
            DD_SHUTDOWN_TIMEOUT="15",
        )
        base.setdefault("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/")
        stack = Stack(public_url=public_url, http_url=f"http://127.0.0.1:{http_port}", database_url=database.url,
                      postgres=database, redis=redis)
        for n in (1, 2):
            var_dir = folder / f"instance{n}"
            var_dir.mkdir()
            instance = Instance(name=f"instance {n}", port=servers.free_port(),
                                env={**base, "DD_VAR_DIR": str(var_dir)},
                                log_path=results / f"prod-instance{n}.log")
            stack.instances.append(instance)
            cleanup.callback(stop, instance)
            _start(instance)  # the first migrates, seeds and builds; the second finds it all done
        certificate, key = servers.self_signed_certificate(folder)
        site = servers.site_config(ROOT / "deploy" / "nginx.conf", https_port, http_port, [i.port for i in stack.instances], certificate, key)
        stack.nginx_folder = cleanup.enter_context(servers.nginx(site, https_port))
        yield stack


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return chromium_launch_args(browser_type_launch_args)
