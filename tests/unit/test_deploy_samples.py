"""The deployment samples stay runnable: nginx accepts them, and the commands they run exist.

deploy/nginx.conf also runs for real in the production smoke test (tests/prod). The Dockerfile,
compose file and systemd unit cannot run here (no Docker engine, no systemd); this checks that
the commands they start are ones the CLI accepts.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from discount_deals.__main__ import build_parser

from ..conftest import ROOT
from ..support import servers

DEPLOY = ROOT / "deploy"
needs_nginx = pytest.mark.skipif(not Path(servers.NGINX).exists() or shutil.which("openssl") is None,
                                 reason="nginx or openssl is not installed (make prod-deps)")


def _nginx_t(site: str, tmp_path: Path) -> subprocess.CompletedProcess:
    config = tmp_path / "nginx.conf"
    config.write_text(servers.nginx_main_config(site, tmp_path))
    return subprocess.run([servers.NGINX, "-t", "-c", str(config), "-p", str(tmp_path)], capture_output=True, text=True)


@needs_nginx
def test_the_nginx_site_passes_nginx_t(tmp_path):
    certificate, key = servers.self_signed_certificate(tmp_path)
    site = servers.site_config(DEPLOY / "nginx.conf", 8443, 8080, [3001, 3002], certificate, key)
    checked = _nginx_t(site, tmp_path)
    assert checked.returncode == 0, checked.stderr


@needs_nginx
def test_the_compose_nginx_site_passes_nginx_t(tmp_path):
    # The compose service names resolve only inside compose's network.
    site = re.sub(r"server app[12]:3000", "server 127.0.0.1:3000", (DEPLOY / "nginx-compose.conf").read_text())
    site = site.replace("listen 80;", "listen 127.0.0.1:8080;")
    checked = _nginx_t(site, tmp_path)
    assert checked.returncode == 0, checked.stderr


def _cli_args(command: str) -> list[str]:
    words = shlex.split(command)
    index = words.index("discount_deals")
    return [word.replace("%i", "3001") for word in words[index + 1 :]]


def test_the_systemd_unit_and_the_dockerfile_run_real_commands():
    parser = build_parser()
    unit = (DEPLOY / "discount-deals@.service").read_text()
    (exec_start,) = re.findall(r"(?m)^ExecStart=(.+)$", unit)
    args = parser.parse_args(_cli_args(exec_start))
    assert (args.command, args.host, args.port) == ("serve", "127.0.0.1", 3001)

    dockerfile = (DEPLOY / "Dockerfile").read_text()
    (cmd,) = re.findall(r"(?m)^CMD (\[.+\])$", dockerfile)
    import json

    assert parser.parse_args(json.loads(cmd)[3:]).command == "serve"
    (build,) = re.findall(r"python -m discount_deals (build-frontend[^\n]*)", dockerfile)
    assert parser.parse_args(shlex.split(build)).command == "build-frontend"


def test_the_compose_file_sets_what_several_instances_need():
    compose = (DEPLOY / "compose.yaml").read_text()
    for setting in ("REFLEX_DB_URL", "REFLEX_REDIS_URL", "DD_SECRET_KEY", "DD_PUBLIC_URL", "DD_TRUSTED_PROXY_HOPS",
                    "DD_INSTANCES", "GRANIAN_WORKERS", "DD_MEDIA_DIR"):
        assert f"{setting}:" in compose
    assert "dockerfile: deploy/Dockerfile" in compose


def test_the_sample_environment_takes_real_payments_in_cedis(monkeypatch):
    """deploy/env.example serves a public address behind a proxy: the fake payment provider would
    be refused there, and Paystack charges mobile money in cedis only (issue 32 item 6)."""
    from discount_deals.server import preflight
    from discount_deals.config.settings import get_settings

    for line in (DEPLOY / "env.example").read_text().splitlines():
        name, _, value = line.partition("=")
        if name and not name.startswith("#") and not name.startswith(("REFLEX_", "DD_VAR_DIR", "DD_MEDIA_DIR")):
            monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        problems = preflight.plan_server(production=True, connect=False, host="127.0.0.1").problems
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert [p for p in problems if p.startswith(("DD_PAYMENT_PROVIDER", "DD_CURRENCY", "DD_SMS_PROVIDER"))] == []
