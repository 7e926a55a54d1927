"""Throwaway PostgreSQL, Redis and nginx servers on free loopback ports, in temporary folders.

Each is started from the Debian package's binaries (``make prod-deps`` installs them) and
stopped by its own PID; nothing is left behind. As root, PostgreSQL runs as the ``postgres``
user (it refuses root) and nginx's workers as root (the temp folders are root's).
"""

from __future__ import annotations

import glob
import re
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def closed_port() -> int:
    """A loopback port nothing listens on (its socket is closed once the number is known)."""
    return free_port()


def stop_process_group(process: subprocess.Popen, grace: float = 30) -> None:
    """SIGTERM the process group ``process`` leads (started with ``start_new_session=True``), then
    SIGKILL after ``grace`` seconds; a process that already ended is left alone."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    except ProcessLookupError:
        pass


def wait_for_port(port: int, timeout: float = 30, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server on port {port} exited with {process.returncode}") from None
            time.sleep(0.05)
    raise RuntimeError(f"nothing answers on port {port} after {timeout} s")


PROJECT_ROOT = Path(__file__).resolve().parents[2]


def launch(command: list[str], *, env: dict[str, str], log) -> subprocess.Popen:
    """Start a server from the project's root in a session of its own (``stop_process_group``
    ends it and its workers), its output to the open file ``log``."""
    return subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def answers_ok(url: str, timeout: float = 5) -> bool:
    """Whether ``url`` answers 200 now (anything else, or no answer, is False)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200
    except Exception:
        return False


def wait_until_serving(process: subprocess.Popen, ready: Callable[[], bool], *, timeout: float, pause: float,
                       exited: Callable[[int], str], late: str) -> None:
    """Poll ``ready`` every ``pause`` s until it holds, for a server ``process`` just started:
    RuntimeError(``exited(return code)``) if the process ends first, RuntimeError(``late``)
    after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(exited(process.returncode))
        if time.monotonic() > deadline:
            raise RuntimeError(late)
        time.sleep(pause)


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: [int(x) for x in p.split("/")[4].split(".") if x.isdigit()])
    return Path(found[-1]).parent if found else None


@dataclass
class Postgres:
    """A throwaway cluster: ``url``, and ``stop()`` / ``start()`` to take it away and bring it back."""

    bin_dir: Path
    data: Path
    log: Path
    options: str
    port: int
    as_pg: list[str]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/discount_deals"

    def _ctl(self, *args: str, check: bool = True) -> None:
        subprocess.run([*self.as_pg, str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *args],
                       check=check, capture_output=True)

    def start(self) -> None:
        self._ctl("-l", str(self.log), "-w", "-o", self.options, "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "-w", "stop", check=False)


@contextmanager
def postgres(*, durable: bool = False, max_connections: int = 100) -> Iterator[Postgres]:
    """A fresh cluster with a database ``discount_deals``.

    ``durable=False`` turns fsync off (tests); benchmarks keep PostgreSQL's defaults.
    """
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL server binaries not found: run 'make prod-deps'")
    folder = Path(tempfile.mkdtemp(prefix="dd-pg-"))
    as_pg: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c max_connections={max_connections}"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    server = Postgres(bin_dir=bin_dir, data=folder / "data", log=folder / "log", options=options, port=port,
                      as_pg=as_pg)
    try:
        subprocess.run([*as_pg, str(bin_dir / "initdb"), "-D", str(server.data), "-A", "trust", "-U", "postgres"],
                       check=True, capture_output=True)
        server.start()
        subprocess.run([*as_pg, str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                        "discount_deals"], check=True, capture_output=True)
        yield server
    finally:
        server._ctl("-m", "immediate", "stop", check=False)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Redis:
    port: int
    folder: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, process=self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
        self.process = None


@contextmanager
def redis() -> Iterator[Redis]:
    server = Redis(port=free_port(), folder=Path(tempfile.mkdtemp(prefix="dd-redis-")))
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


NGINX = "/usr/sbin/nginx"


def nginx_main_config(site: str, folder: Path) -> str:
    """A complete nginx.conf around a site file (deploy/nginx.conf), with every path in ``folder``."""
    user = "user root root;\n" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {name}_temp_path {folder / name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        "http {\n"
        f"    access_log {folder / 'access.log'};\n{temp}\n"
        "    include /etc/nginx/mime.types;\n"
        f"{site}\n}}\n"
    )


@contextmanager
def nginx(site: str, port: int) -> Iterator[Path]:
    """Run nginx in the foreground with ``site`` (already pointed at the right ports); yields its folder."""
    folder = Path(tempfile.mkdtemp(prefix="dd-nginx-"))
    os.chmod(folder, 0o755)
    config = folder / "nginx.conf"
    config.write_text(nginx_main_config(site, folder))
    checked = subprocess.run([NGINX, "-t", "-c", str(config), "-p", str(folder)], capture_output=True, text=True)
    if checked.returncode != 0:
        raise RuntimeError(f"nginx -t refused the configuration: {checked.stderr.strip()}")
    process = subprocess.Popen([NGINX, "-c", str(config), "-p", str(folder), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process=process)
        yield folder
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # graceful
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)


def site_config(sample: Path, https_port: int, http_port: int, upstreams: list[int], certificate: Path,
                key: Path) -> str:
    """deploy/nginx.conf itself, pointed at a test's ports and certificate (and IPv4 only)."""
    site = sample.read_text()
    servers_block = "".join(f"    server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;\n" for port in upstreams)
    site, count = re.subn(r"(?m)^    server 127\.0\.0\.1:\d+ [^\n]*\n(?:    server 127\.0\.0\.1:\d+ [^\n]*\n)*",
                          servers_block, site, count=1)
    assert count == 1, "deploy/nginx.conf: upstream servers not found"
    replacements = [
        (r"(?m)^\s*listen \[::\]:[^\n]*\n", ""),
        (r"(?m)^(\s*)listen 80;", rf"\1listen 127.0.0.1:{http_port};"),
        (r"(?m)^(\s*)listen 443 ssl http2;[^\n]*", rf"\1listen 127.0.0.1:{https_port} ssl http2;"),
        (r"(?m)^(\s*)ssl_certificate     [^\n]*", rf"\1ssl_certificate     {certificate};"),
        (r"(?m)^(\s*)ssl_certificate_key [^\n]*", rf"\1ssl_certificate_key {key};"),
        (r"server_name shop\.example\.com;", "server_name 127.0.0.1;"),
    ]
    for pattern, replacement in replacements:
        site, count = re.subn(pattern, replacement, site)
        assert count >= 1, f"deploy/nginx.conf: {pattern!r} not found"
    return site


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True,
    )
    os.chmod(key, 0o644)  # read by nginx's workers
    return certificate, key
