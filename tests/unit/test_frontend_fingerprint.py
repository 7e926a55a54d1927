"""The launcher rebuilds the frontend only when something it depends on changed (issue 12, item 7)."""

from __future__ import annotations

import json
import os

import pytest

from discount_deals.server import launcher
from discount_deals.config.settings import FRONTEND_BUILD_ENV


@pytest.fixture
def project(tmp_path, monkeypatch):
    for name in FRONTEND_BUILD_ENV:
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "discount_deals").mkdir()
    (tmp_path / "discount_deals" / "page.py").write_text("TITLE = 'Deals'\n")
    (tmp_path / "discount_deals" / "__pycache__").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.css").write_text("body{}")
    (tmp_path / "rxconfig.py").write_text("config = None\n")
    (tmp_path / "reflex.lock").mkdir()
    (tmp_path / "reflex.lock" / "package.json").write_text("{}")
    (tmp_path / "requirements.txt").write_text("reflex==0.10.1\n")
    index = tmp_path / launcher.STATIC_INDEX
    index.parent.mkdir(parents=True)
    index.write_text("<html></html>")
    return tmp_path


def _stamp(root) -> str:
    fingerprint = launcher.frontend_fingerprint(root)
    (root / launcher.BUILD_STAMP).write_text(json.dumps(
        {"fingerprint": fingerprint, "index_mtime_ns": (root / launcher.STATIC_INDEX).stat().st_mtime_ns}
    ))
    return fingerprint


def test_nothing_changed_means_no_build(project):
    _stamp(project)
    assert launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)


def test_compiled_python_files_do_not_count(project):
    _stamp(project)
    (project / "discount_deals" / "__pycache__" / "page.cpython-311.pyc").write_bytes(b"\0")
    assert launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)


@pytest.mark.parametrize("path", ["discount_deals/page.py", "assets/app.css", "rxconfig.py", "reflex.lock/package.json",
                                  "requirements.txt"])
def test_a_changed_input_means_a_build(project, path):
    _stamp(project)
    (project / path).write_text((project / path).read_text() + "\n# changed\n")
    assert not launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)


def test_another_public_address_means_a_build(project, monkeypatch):
    _stamp(project)
    monkeypatch.setenv("REFLEX_API_URL", "https://shop.example.com")
    assert not launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)


def test_a_build_made_by_something_else_is_not_trusted(project):
    _stamp(project)
    index = project / launcher.STATIC_INDEX
    stat = index.stat()
    os.utime(index, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # e.g. `reflex run` rebuilt it
    assert not launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)


def test_missing_build_output_means_a_build(project):
    _stamp(project)
    (project / launcher.STATIC_INDEX).unlink()
    assert not launcher.frontend_is_current(launcher.frontend_fingerprint(project), project)
