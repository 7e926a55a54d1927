"""The service worker of a production build (issue 31): installable and usable offline.

:func:`install` runs after each frontend build. It copies Workbox's runtime (installed from npm
with the frontend's packages, rxconfig's ``frontend_packages``) into the build as
``/workbox-<version>/``, and writes ``/sw.js`` from ``service_worker.js`` with the list of files
to keep: the storefront's code (every route's module and imports, from React Router's manifest,
but the back office's), the style sheet, the app's empty shell and the files at the root the
app uses. A new build writes a new list, so browsers notice the new worker and drop what the
old one kept.

Why Workbox and not a worker of our own: precaching by revision, cleaning up after an upgrade,
network-first with a timeout and bounded caches with expiry are its everyday work, maintained
and tested on every browser; what is left to us is saying what goes where.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import brotli

TEMPLATE = Path(__file__).with_name("service_worker.js")
WORKBOX_MODULES = ("core", "precaching", "routing", "strategies", "expiration", "cacheable-response")
# Files at the root the storefront uses, kept with a revision (their names do not change).
ROOT_FILES = ("/__spa-fallback.html", "/shop.js", "/manifest.webmanifest", "/favicon.svg", "/placeholder.webp",
              "/icons/icon-192.png")
BACK_OFFICE = re.compile(r"admin")  # route ids whose code only admins need
_MANIFEST = re.compile(r'"(/assets/manifest-[^"]+\.js)"')


class ServiceWorkerError(Exception):
    """The build lacks what the worker needs (no Workbox, no React Router manifest)."""


def workbox_version(node_modules: Path) -> str:
    try:
        return json.loads((node_modules / "workbox-sw" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError) as exc:
        raise ServiceWorkerError("Workbox is not installed with the frontend's packages (rxconfig.py)") from exc


def copy_workbox(static_dir: Path, node_modules: Path) -> str:
    """Workbox's loader and the modules the worker uses, as ``/workbox-<version>/``; the version."""
    version = workbox_version(node_modules)
    target = static_dir / f"workbox-{version}"
    target.mkdir(exist_ok=True)
    files = [node_modules / "workbox-sw" / "build" / "workbox-sw.js"] + [
        node_modules / f"workbox-{name}" / "build" / f"workbox-{name}.prod.js" for name in WORKBOX_MODULES
    ]
    for source in files:
        if not source.is_file():
            raise ServiceWorkerError(f"Workbox file missing: {source}")
        shutil.copyfile(source, target / source.name)
        compressed_copies(target / source.name)
    return version


def compressed_copies(path: Path) -> None:
    """``path.br`` and ``path.gz`` beside ``path``, as the build leaves for its own files (the
    server sends the one the browser accepts)."""
    data = path.read_bytes()
    path.with_name(path.name + ".br").write_bytes(brotli.compress(data, quality=11))
    path.with_name(path.name + ".gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def router_manifest(static_dir: Path) -> dict:
    """React Router's manifest of this build (the routes, their modules and imports)."""
    index = (static_dir / "index.html").read_text(encoding="utf-8")
    found = _MANIFEST.search(index)
    if found is None:
        raise ServiceWorkerError("the built index page names no React Router manifest")
    text = (static_dir / found.group(1).lstrip("/")).read_text(encoding="utf-8")
    return {"_module": found.group(1), **json.loads(text[text.index("{"): text.rindex("}") + 1])}


def storefront_files(manifest: dict) -> list[str]:
    """Every file the storefront's routes load (entry, root, each route but the back office's)."""
    files: list[str] = [manifest["_module"]]
    parts = [manifest["entry"], *(route for route_id, route in manifest["routes"].items()
                                  if not BACK_OFFICE.search(route_id))]
    for part in parts:
        for url in [part.get("module"), *part.get("imports", []), *part.get("css", [])]:
            if url and url not in files:
                files.append(url)
    return files


def revision(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def precache_list(static_dir: Path) -> list[dict]:
    """What the worker keeps at install: hashed names need no revision, the others get one."""
    entries = [{"url": url, "revision": None} for url in storefront_files(router_manifest(static_dir))]
    entries += [{"url": f"/assets/{css.name}", "revision": None} for css in sorted(static_dir.glob("assets/*.css"))]
    for url in ROOT_FILES:
        path = static_dir / url.lstrip("/")
        if path.is_file():
            entries.append({"url": url, "revision": revision(path)})
    return entries


def install(static_dir: Path, node_modules: Path) -> Path:
    """Put ``/sw.js`` and Workbox into the build in ``static_dir``; the worker's path."""
    version = copy_workbox(static_dir, node_modules)
    worker = TEMPLATE.read_text(encoding="utf-8").replace("__WORKBOX_VERSION__", version).replace(
        "__PRECACHE__", json.dumps(precache_list(static_dir), separators=(",", ":"))
    )
    path = static_dir / "sw.js"
    path.write_text(worker, encoding="utf-8")
    compressed_copies(path)
    return path
