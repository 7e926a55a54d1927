"""The first HTML: the build plugin, filling page shells, server markup and head tags."""

from __future__ import annotations

import json
import re

import pytest

from discount_deals.server.plugins import PRODUCT_SHELL_PATH, add_prerender_paths
from discount_deals.web.first_html import head as heads
from discount_deals.web.first_html import markup
from discount_deals.web.first_html.shell import Fill, ShellError, _script_json, defer_boot, fill, inline_stylesheet
from discount_deals.config.public_url import absolute_url, public_base_url
from discount_deals.display import ProductView, whatsapp_share_url

# The shape of a page React Router pre-renders (head, streamed body, boot module).
SHELL = (
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>Product | Discount Deals</title>'
    '<meta content="/og-image.png" property="og:image"/>'
    '<link rel="modulepreload" href="/assets/manifest-1.js"/><link rel="modulepreload" href="/assets/root-2.js"/>'
    '</head><body><a href="/products/__shell__/#main">Skip to content</a>'
    '<script type="module" async="">import "/assets/manifest-1.js";\nimport("/assets/entry.client-3.js");</script>'
    '<div hidden id="S:1"><main id="main"><div class="rx-Html" data-ssr-slot="product"><div aria-hidden="true">'
    '<div class="a"></div><div class="b"></div></div><span class="sr-only">Loading product...</span></div>'
    '<p>after</p></main><a href="/products/__shell__/">Privacy Policy</a></div></body></html>'
)


def test_the_plugin_adds_the_product_shell_to_the_prerendered_paths():
    config = 'export default {"basename": "/", "ssr": false, "prerender": true, "build": "build"};'
    changed = add_prerender_paths(config, [PRODUCT_SHELL_PATH])
    assert '"prerender": ({getStaticPaths}) => [...getStaticPaths(), ...["/products/__shell__"]]' in changed
    assert '"basename": "/"' in changed and '"ssr": false' in changed
    # Development builds (no prerendering) and unknown shapes are left alone.
    dev = 'export default {"basename": "/", "ssr": false};'
    assert add_prerender_paths(dev, ["/x"]) == dev
    assert add_prerender_paths("module.exports = {}", ["/x"]) == "module.exports = {}"


def test_fill_replaces_the_slot_title_head_and_shell_links():
    page = fill(
        SHELL,
        Fill(
            slots={"product": "<h1>Rice &amp; Beans</h1>"},
            head='<meta name="x" content="y"/>',
            title="Rice & Beans | Discount Deals",
            shell_path=PRODUCT_SHELL_PATH,
            path="/products/abc",
        ),
    )
    assert '<div class="rx-Html" data-ssr-slot="product"><h1>Rice &amp; Beans</h1></div><p>after</p>' in page
    assert "<title>Rice &amp; Beans | Discount Deals</title>" in page
    assert '<meta name="x" content="y"/></head>' in page
    assert 'property="og:image"' not in page  # the relative default gives way to the absolute one
    assert 'href="/products/abc/#main"' in page and 'href="/products/abc/">Privacy' in page
    assert "__shell__" not in page
    assert '<html data-ssr="" lang="en">' in page


def test_fill_refuses_a_shell_without_the_slot():
    with pytest.raises(ShellError):
        fill(SHELL, Fill(slots={"listing": "x"}))


def test_the_boot_waits_for_the_first_paint_and_keeps_its_element():
    page = defer_boot(SHELL)
    assert 'rel="modulepreload"' not in page
    assert '<script type="module"' not in page
    loader = re.search(r"<script>(\(function\(preloads, code\).*?)</script>", page, re.S).group(1)
    assert "requestAnimationFrame(function () { requestAnimationFrame(" in loader and "'pointerdown'" in loader
    assert json.dumps(["/assets/manifest-1.js", "/assets/root-2.js"]) in loader
    assert '"import \\"/assets/manifest-1.js\\";\\nimport(\\"/assets/entry.client-3.js\\");"' in loader
    # Text that would end the loader's script element is escaped.
    assert _script_json(["</script>"]) == '["<\\/script>"]'


def test_the_style_sheet_comes_inside_the_page_and_its_links_stay_inert(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app-1.css").write_text(".a{color:red}</style>")
    page = (
        '<head><link as="style" href="/assets/app-1.css" rel="preload"/>'
        '<link href="/assets/app-1.css" rel="stylesheet" type="text/css"/></head>'
    )
    inlined = inline_stylesheet(page, tmp_path)
    assert "<style>.a{color:red}<\\/style></style>" in inlined  # cannot close the element early
    assert '<link href="/assets/app-1.css" rel="stylesheet" type="text/css" disabled=""/>' in inlined
    assert '<link as="style" href="/assets/app-1.css" rel="preload" media="not all"/>' in inlined
    assert inline_stylesheet(page, tmp_path / "missing") == page  # no build: the link as it was


def _view(**fields) -> ProductView:
    values = dict(
        id="p1", name='Rice "Gold" <5kg>', description="Long grain & tasty", brand="shoprite",
        image_url="/api/media/rice.webp", category="Food", price_text="$10.18", original_text="$18.50",
        save_text="$8.32", has_discount=True, discount_percent=45, rating=4.0, rating_text="4.0", full_stars=4, stars_on="★★★★", stars_off="★",
        stock=3, stock_text="3 in stock", href="/products/p1",
    )
    values.update(fields)
    return ProductView(**values)


def test_card_markup_escapes_and_says_what_the_app_says():
    html = markup.product_card(_view(), 0)
    assert "Rice &quot;Gold&quot; &lt;5kg&gt;" in html and "<5kg>" not in html
    assert 'aria-label="Add to Cart: Rice &quot;Gold&quot; &lt;5kg&gt;"' in html
    assert '<span class="sr-only"> was</span><s class="text-sm text-gray-600">$18.50</s>' in html
    assert "Save $8.32" in html and "-45%" in html and "3 in stock" in html
    assert 'fetchpriority="high"' in html and 'loading="eager"' in html
    assert html.count('href="/products/p1"') == 2  # the picture and the name
    # Buttons are inert until the app takes over, without looking disabled.
    add = re.search(r'<button type="button" aria-label="Add to Cart: [^"]*"[^>]*>', html).group(0)
    assert " disabled " in add and "disabled:bg-gray-400" not in add
    # A tap on them is kept for the app's button of the same name (the boot loader's replay).
    assert ' data-ssr-tap=""' in add
    assert html.count("data-ssr-tap") == 2  # and on the heart
    out = markup.product_card(_view(stock=0, stock_text="Out of stock", has_discount=False), 5)
    assert "Out of Stock</button>" in out and "disabled:bg-gray-400" in out and 'loading="lazy"' in out
    sold_out = re.search(r'<button type="button" aria-label="Out of Stock: [^"]*"[^>]*>', out).group(0)
    assert "data-ssr-tap" not in sold_out  # really disabled: a tap there is not for later
    assert "Save" not in out and "-45%" not in out


def test_showing_text_matches_the_listing_line():
    assert markup.showing_text(10, 130, 1, 13) == "Showing 10 of 130 products (Page 1 of 13)"
    assert markup.showing_text(3, 3, 1, 1) == "Showing 3 of 3 products"


def test_product_json_ld_and_head_tags_are_escaped():
    data = heads.product_json_ld(
        url="https://shop.example/products/p1", name="Rice </script><b>", description="d", image="https://i/x.webp",
        product_id="p1", brand="shoprite", category="Food", price="10.18", currency="GHS", in_stock=False,
    )
    assert data["offers"]["price"] == "10.18" and data["offers"]["priceCurrency"] == "GHS"
    assert data["offers"]["availability"] == "https://schema.org/OutOfStock"
    tags = heads.render(
        heads.Head(title='A "b"', description="<d>", url="https://shop.example/p", image="https://i/x", json_ld=data),
        include_description=True,
    )
    assert '<meta property="og:title" content="A &quot;b&quot;"' in tags
    assert '<meta name="description" content="&lt;d&gt;"' in tags
    assert '<link rel="canonical" href="https://shop.example/p"' in tags
    assert "</script><b>" not in tags and "\\u003c/script>\\u003cb>" in tags
    payload = re.search(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', tags).group(1)
    assert json.loads(payload)["name"] == "Rice </script><b>"


def test_descriptions_are_shortened_at_a_word():
    text = "word " * 100
    short = heads.shorten(text)
    assert len(short) <= heads.DESCRIPTION_LENGTH and short.endswith("word…")
    assert heads.shorten("  two\n words ") == "two words"


def test_public_url_prefers_the_configured_address(monkeypatch):
    from discount_deals.config.settings import get_settings

    def public_url(value: str | None) -> None:
        if value is None:
            monkeypatch.delenv("DD_PUBLIC_URL", raising=False)
        else:
            monkeypatch.setenv("DD_PUBLIC_URL", value)
        get_settings.cache_clear()

    public_url(None)
    assert public_base_url("http://127.0.0.1:3000/") == "http://127.0.0.1:3000"
    assert absolute_url("/products/1", "http://h") == "http://h/products/1"
    assert absolute_url("https://cdn.example/x.webp", "http://h") == "https://cdn.example/x.webp"
    public_url("https://deals.example.com/")
    assert absolute_url("products/1", "http://evil.example") == "https://deals.example.com/products/1"
    public_url("javascript:alert(1)")
    assert public_base_url("http://h") == "http://h"
    public_url(None)


def test_whatsapp_link_carries_the_name_price_and_url():
    link = whatsapp_share_url("Rice & Beans", "$10.18", "https://shop.example/products/p1")
    assert link.startswith("https://wa.me/?text=")
    assert "Rice%20%26%20Beans%20for%20%2410.18" in link and "https%3A%2F%2Fshop.example%2Fproducts%2Fp1" in link


def test_the_product_pages_buttons_keep_a_tap_except_copy_link():
    html = markup.product_detail(_view(), tags=[], category_href="/products?category=rice",
                                 whatsapp_url="https://wa.me/?text=x", related=[])
    kept = re.findall(r'<button type="button"(?: aria-label="([^"]*)")?[^>]* data-ssr-tap="(?:repeat)?"', html)
    assert 'aria-label="Increase quantity" data-ssr-tap="repeat"' in html  # each tap on + counts
    name = "Rice &quot;Gold&quot; &lt;5kg&gt;"
    assert sorted(kept) == sorted(["Increase quantity", f"Add to Cart: {name}", f"Add {name} to favorites"])
    copy = re.search(r"<button[^>]*>(?:(?!</button>).)*Copy link</button>", html, re.S).group(0)
    assert "data-ssr-tap" not in copy  # copying needs the tap itself
    decrease = re.search(r'<button type="button" aria-label="Decrease quantity"[^>]*>', html).group(0)
    assert "data-ssr-tap" not in decrease  # disabled at 1: nothing to do later
    last_one = markup.product_detail(_view(stock=1), tags=[], category_href="", whatsapp_url="", related=[])
    increase = re.search(r'<button type="button" aria-label="Increase quantity"[^>]*>', last_one).group(0)
    assert " disabled " in increase and "data-ssr-tap" not in increase  # as the app's: no more than the stock


def test_the_loader_keeps_a_tap_on_a_waiting_button_and_not_a_drag():
    loader = re.search(r"<script>(\(function\(preloads, code\).*?)</script>", defer_boot(SHELL), re.S).group(1)
    assert "addEventListener('pointerup'" in loader and "'pointercancel'" in loader
    assert "button[disabled]" in loader and "data-ssr-tap" in loader and "aria-busy" in loader


def test_controls_wait_disabled_until_the_app_has_hydrated_them():
    from discount_deals.web.first_html.shell import inert_controls

    html = (
        '<button type="button" class="a">Open menu</button><input id="header-search" name="search"/>'
        '<input type="search" id="product-search" value=""/><button disabled="" type="button">Prev</button>'
        '<select id="sort"><option>Name</option></select><a href="/products">Products</a>'
    )
    out = inert_controls(html)
    assert '<button type="button" class="a" disabled="" data-ssr-inert="">Open menu</button>' in out
    assert '<input type="search" id="product-search" value="" disabled="" data-ssr-inert=""/>' in out
    assert '<select id="sort" disabled="" data-ssr-inert="">' in out
    assert '<input id="header-search" name="search"/>' in out  # a plain GET form works without the app
    assert '<button disabled="" type="button">Prev</button>' in out  # already disabled: left alone
    assert '<a href="/products">Products</a>' in out
    page = defer_boot(SHELL)
    assert "__reactProps$" in page and "removeAttribute('data-ssr-inert')" in page


def test_the_deferred_boot_module_is_allowed_by_the_pages_csp():
    """The loader inserts the boot module as an inline script; the page's policy allows inline
    scripts by hash, and the filled page knows them all: the shell file's (the boot module's own
    text among them), the loader's and the renderer's, without reading the page it sends."""
    from discount_deals.web.csp import inline_script_hashes, script_hash
    from discount_deals.web.first_html.shell import Shell, fill_page

    code = 'import "/assets/manifest.js"; import("/assets/entry.client.js");'
    html = (
        '<html><head><title>x</title></head><body><script>window.x=1</script>'
        f'<div data-ssr-slot="product"></div><script type="module" async="">{code}</script></body></html>'
    )
    shell = Shell(html, tuple(inline_script_hashes(html.encode())))
    page = fill_page(shell, Fill(slots={"product": "<p>Rice</p>"}, head="<script>ld()</script>",
                                 script_hashes=(script_hash("ld()"),)))
    assert f'<script type="module" async="">{code}</script>' not in page.html
    assert script_hash(code) in page.script_hashes  # the boot module the loader inserts
    assert set(inline_script_hashes(page.html.encode())) <= set(page.script_hashes)
    assert f"<script>{code}</script>" not in page.html  # no copy of the module kept for a scanner
