"""Record what a real browser sends, for bench/ui_load.py's synthetic tabs.

Debian's Chromium (Playwright) walks the shopper's journey once against the server under test:
open /products, a page, a sort, a search, a product, Add to Cart; then, signed in, /checkout.
Every websocket frame it sends is kept, and reduced to the templates a synthetic tab replays:
the CONNECT packet (hydrate event with the build's state hashes), the event names of the
controls it clicked, the browser-storage variables a navigation carries, and a signed-in tab's
storage with its tokens made into placeholders. Run it alone to look at the frames:

    .venv/bin/python bench/_ui_record.py http://127.0.0.1:3000 [--frames frames.json]
"""

from __future__ import annotations

import json
import sys

from playwright.sync_api import expect, sync_playwright

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
HANDLERS = ("go_to_page", "set_sort", "apply_search", "add_to_cart")
ACCESS, REFRESH = "{access}", "{refresh}"


def _watch(page, frames: list) -> None:
    def on_ws(ws):
        ws.on("framesent", lambda payload: frames.append(payload if isinstance(payload, str) else ""))
    page.on("websocket", on_ws)


def _guest_journey(page, url: str) -> None:
    page.goto(url + "/products")
    expect(page.get_by_text("Showing 10 of")).to_be_visible()
    page.get_by_role("button", name="Page 2", exact=True).first.click()
    expect(page.get_by_text("(Page 2 of")).to_be_visible()
    page.get_by_label("Sort By").select_option("price-high")
    expect(page.get_by_text("(Page 1 of")).to_be_visible()
    box = page.get_by_placeholder("Search products...").first
    box.fill("rice")
    box.press("Enter")
    expect(page.get_by_text('for "rice"')).to_be_visible()
    page.locator("main a[href^='/products/']:not([href*='#'])").first.click()
    add = page.get_by_role("button", name="Add to Cart").first
    expect(add).to_be_enabled()
    add.click()
    expect(page.get_by_text("Added to cart!").first).to_be_visible()


def _signed_in_visit(page, url: str, tokens: dict) -> None:
    page.goto(url + "/no-such-page")
    page.evaluate("([a, r]) => { localStorage.setItem('accessToken', a); localStorage.setItem('refreshToken', r); }",
                  [tokens["access"], tokens["refresh"]])
    page.goto(url + "/checkout")
    expect(page.get_by_text("Hi, Ama").first).to_be_attached()  # the session is the account's


def _events(frames: list[str]) -> list[dict]:
    found = []
    for frame in frames:
        if frame.startswith("42/_event,"):
            found.append(json.loads(frame[len("42/_event,"):])[1])
    return found


def record(url: str, tokens: dict | None = None, frames_out: str | None = None) -> dict:
    """Templates for bench/_ui_tab.Recording; ``tokens`` ({access, refresh}) adds a signed-in visit."""
    guest_frames: list[str] = []
    signed_frames: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        _watch(page, guest_frames)
        _guest_journey(page, url)
        if tokens:
            signed = browser.new_page(viewport={"width": 390, "height": 844})
            _watch(signed, signed_frames)
            _signed_in_visit(signed, url, tokens)
        browser.close()
    if frames_out:
        with open(frames_out, "w") as out:
            json.dump({"guest": guest_frames, "signed_in": signed_frames}, out, indent=1)
    connect = next(f for f in guest_frames if f.startswith("40/_event,"))
    auth = json.loads(connect[len("40/_event,"):])
    auth["event"]["payload"].pop("vars", None)
    events = _events(guest_frames)
    handlers = {}
    for event in events:
        short = event["name"].rsplit(".", 1)[-1]
        if short in HANDLERS:
            handlers[short] = event["name"]
    update_vars = next(e for e in events if e["name"].endswith(".update_vars_internal"))
    on_load = next(e for e in events if e["name"].endswith(".on_load_internal"))
    recording = {
        "connect_auth": auth,
        "storage_vars": update_vars["payload"]["vars"],
        "handlers": handlers,
        "update_vars_name": update_vars["name"],
        "on_load_name": on_load["name"],
        "signed_in_vars": {},
    }
    if tokens:
        signed_connects = [f for f in signed_frames if f.startswith("40/_event,")]
        storage = json.loads(signed_connects[-1][len("40/_event,"):])["event"]["payload"].get("vars") or {}
        for key, value in storage.items():
            if isinstance(value, str):
                storage[key] = value.replace(tokens["access"], ACCESS).replace(tokens["refresh"], REFRESH)
        recording["signed_in_vars"] = storage
    missing = set(HANDLERS) - set(handlers)
    if missing:
        raise RuntimeError(f"the browser's journey sent no event for {sorted(missing)}")
    return recording


def signed_in_storage(template: dict, tokens: dict) -> dict:
    """A signed-in tab's browser storage for another account's tokens."""
    return {key: value.replace(ACCESS, tokens["access"]).replace(REFRESH, tokens["refresh"])
            if isinstance(value, str) else value for key, value in template.items()}


if __name__ == "__main__":
    out = sys.argv[sys.argv.index("--frames") + 1] if "--frames" in sys.argv else None
    print(json.dumps(record(sys.argv[1], frames_out=out), indent=1)[:4000])
