"""The web shell's part of issue 31: how long files may be kept, and the service worker a build
gets (its Workbox files and the list of what it keeps)."""

from __future__ import annotations

import json

import pytest

from discount_deals.web import caching, service_worker
from discount_deals.web.service_worker import ServiceWorkerError

from ..support.loops import run_coroutine


@pytest.mark.parametrize("path, policy", [
    ("/assets/entry.client-CS7job2t.js", caching.IMMUTABLE),
    ("/workbox-7.4.1/workbox-sw.js", caching.IMMUTABLE),
    ("/api/media/demo/rice.webp", caching.MEDIA),
    ("/shop.js", caching.REVALIDATE),
    ("/sw.js", caching.REVALIDATE),
    ("/manifest.webmanifest", caching.DAY),
    ("/favicon.svg", caching.DAY),
    ("/icons/icon-192.png", caching.DAY),
    ("/products", None),
    ("/products/abc", None),
    ("/api/products/", None),
    ("/deep/file.png", None),
])
def test_each_kind_of_file_is_kept_as_long_as_it_cannot_change(path, policy):
    assert caching.cache_policy(path) == policy


def _serve(path: str, status: int, headers: list[tuple[bytes, bytes]]) -> dict:
    """The response start ``StaticCaching`` sends for an app answering with ``headers``."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status, "headers": list(headers)})
        await send({"type": "http.response.body", "body": b"x"})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "headers": []}
    run_coroutine(caching.StaticCaching(app)(scope, None, send))
    return {key.decode().lower(): value.decode() for key, value in sent[0]["headers"]}


def test_built_files_get_their_policy_and_stop_varying_on_origin():
    headers = _serve("/assets/app-1.js", 200, [(b"vary", b"Accept-Encoding, Origin, Origin")])
    assert headers["cache-control"] == caching.IMMUTABLE
    assert headers["vary"] == "Accept-Encoding"  # a module's load and the worker's copy match
    only_origin = _serve("/assets/app-1.js", 200, [(b"vary", b"Origin")])
    assert "vary" not in only_origin


def test_pages_errors_and_own_policies_are_left_alone():
    page = _serve("/products", 200, [(b"vary", b"Accept-Encoding, Origin")])
    assert "cache-control" not in page and page["vary"] == "Accept-Encoding, Origin"
    missing = _serve("/assets/gone.js", 404, [])
    assert "cache-control" not in missing
    own = _serve("/assets/app-1.js", 200, [(b"cache-control", b"no-store")])
    assert own["cache-control"] == "no-store"


# --- the service worker ------------------------------------------------------------------------


def _build(tmp_path):
    static = tmp_path / "client"
    (static / "assets").mkdir(parents=True)
    manifest = {
        "entry": {"module": "/assets/entry-1.js", "imports": ["/assets/react-1.js"], "css": []},
        "routes": {
            "root": {"module": "/assets/root-1.js", "imports": ["/assets/react-1.js"], "css": []},
            "routes/[products]._index": {"module": "/assets/products-1.js", "imports": ["/assets/icon-1.js"]},
            "routes/[admin]._index": {"module": "/assets/admin-1.js", "imports": ["/assets/charts-1.js"]},
        },
    }
    (static / "assets" / "manifest-abc.js").write_text("window.__reactRouterManifest=" + json.dumps(manifest) + ";")
    (static / "assets" / "styles-1.css").write_text("a{}")
    (static / "index.html").write_text('<link rel="modulepreload" href="/assets/manifest-abc.js"/>')
    (static / "shop.js").write_text("// shop")
    (static / "__spa-fallback.html").write_text("<html></html>")
    modules = tmp_path / "node_modules"
    (modules / "workbox-sw" / "build").mkdir(parents=True)
    (modules / "workbox-sw" / "package.json").write_text(json.dumps({"version": "7.4.1"}))
    (modules / "workbox-sw" / "build" / "workbox-sw.js").write_text("// loader")
    for name in service_worker.WORKBOX_MODULES:
        (modules / f"workbox-{name}" / "build").mkdir(parents=True)
        (modules / f"workbox-{name}" / "build" / f"workbox-{name}.prod.js").write_text(f"// {name}")
    return static, modules


def test_the_worker_keeps_the_storefronts_code_but_not_the_back_office(tmp_path):
    static, modules = _build(tmp_path)
    worker = service_worker.install(static, modules).read_text()
    assert "importScripts('/workbox-7.4.1/workbox-sw.js')" in worker and "__WORKBOX_VERSION__" not in worker
    kept = json.loads(worker.split("precacheAndRoute(", 1)[1].split(");", 1)[0])
    urls = [entry["url"] for entry in kept]
    assert {"/assets/manifest-abc.js", "/assets/entry-1.js", "/assets/react-1.js", "/assets/root-1.js",
            "/assets/products-1.js", "/assets/icon-1.js", "/assets/styles-1.css"} <= set(urls)
    assert "/assets/admin-1.js" not in urls and "/assets/charts-1.js" not in urls
    assert len(urls) == len(set(urls))
    revisions = {entry["url"]: entry["revision"] for entry in kept}
    assert revisions["/assets/entry-1.js"] is None  # named by its content already
    assert len(revisions["/shop.js"]) == 16 and len(revisions["/__spa-fallback.html"]) == 16
    copied = sorted(path.name for path in (static / "workbox-7.4.1").iterdir() if path.suffix == ".js")
    assert copied == sorted(["workbox-sw.js", *[f"workbox-{n}.prod.js" for n in service_worker.WORKBOX_MODULES]])
    # Compressed like the build's own files.
    assert (static / "sw.js.br").is_file() and (static / "workbox-7.4.1" / "workbox-sw.js.gz").is_file()


def test_a_new_build_gets_a_new_list(tmp_path):
    static, modules = _build(tmp_path)
    first = service_worker.install(static, modules).read_text()
    (static / "shop.js").write_text("// shop, next version")
    assert service_worker.install(static, modules).read_text() != first  # browsers notice the new worker


def test_a_build_without_workbox_or_manifest_is_refused(tmp_path):
    static, modules = _build(tmp_path)
    with pytest.raises(ServiceWorkerError):
        service_worker.install(static, tmp_path / "no-modules")
    (static / "index.html").write_text("<html></html>")
    with pytest.raises(ServiceWorkerError):
        service_worker.install(static, modules)
