"""The pre-rendered page shells of the production build, and filling them in.

``reflex run --env prod`` pre-renders every static page to HTML (``.web/build/client``), and
the :mod:`discount_deals.server.plugins` build plugin adds one shell of the product page. A shell is the
page as the app first renders it, before any state arrives; the server fills its named slots
(``data-ssr-slot``), its title and its head, and the app hydrates over the result.

A filled page knows its inline scripts: those of the shell's file (hashed once per version of
the file), the boot loader put in place of the boot module, and what the renderer adds (see
:class:`Fill`). Its Content-Security-Policy is built from them (:func:`fill_page`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape
from functools import lru_cache
from pathlib import Path

from ...server.plugins import PRODUCT_SHELL_PATH
from ..csp import inline_script_hashes, script_hash

# Route path -> candidate files under the static folder (React Router writes either form).
SHELL_FILES: dict[str, tuple[str, ...]] = {
    "/": ("index.html",),
    "/products": ("products.html", "products/index.html"),
    "/test-home": ("test-home.html", "test-home/index.html"),
    PRODUCT_SHELL_PATH: (f"{PRODUCT_SHELL_PATH[1:]}.html", f"{PRODUCT_SHELL_PATH[1:]}/index.html"),
}

_TITLE = re.compile(r"<title>.*?</title>", re.S)
_MODULE_BOOT = re.compile(r'<script type="module" async="">(.*?)</script>', re.S)
_MODULEPRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)"/>')
_STYLESHEET = re.compile(r'<link href="(/assets/[^"]+\.css)" rel="stylesheet" type="text/css"/>')
_STYLE_PRELOAD = re.compile(r'<link as="style" href="/assets/[^"]+\.css" rel="preload"/>')
_CONTROL = re.compile(r"<(button|input|select|textarea)\b([^>]*)>")
# Plain form fields that work without the app (the header's GET search form).
_NATIVE_CONTROLS = ('id="header-search"',)

# Starts the app once the first frame is painted (or at the first tap or key press, if sooner):
# the module preloads, then React Router's boot module, as the build wrote them. Until then the
# page is the server's HTML, fully readable.
_BOOT_LOADER = """(function(preloads, code) {
  var started = false;
  function boot() {
    if (started) return;
    started = true;
    preloads.forEach(function (href) {
      var link = document.createElement('link');
      link.rel = 'modulepreload';
      link.href = href;
      document.head.appendChild(link);
    });
    var script = document.createElement('script');
    script.type = 'module';
    script.textContent = code;
    document.head.appendChild(script);
    release(0);
  }
  // Controls wait, disabled, until React has hydrated them (it keeps its props on the element):
  // a click or a keystroke before that would be lost.
  function release(tries) {
    var pending = document.querySelectorAll('[data-ssr-inert]');
    pending.forEach(function (el) {
      if (hydrated(el)) {
        el.removeAttribute('disabled');
        el.removeAttribute('data-ssr-inert');
      }
    });
    if (pending.length && tries < 1200) setTimeout(function () { release(tries + 1); }, 50);
  }
  ['pointerdown', 'keydown', 'touchstart'].forEach(function (type) {
    window.addEventListener(type, boot, { once: true, passive: true });
  });
  // A tap on a button that waits (disabled: the browser still reports the pointer) is kept,
  // shown busy, and done on the live button once there is one, the taps in the order made: the
  // same element once React has hydrated it, or, for the server's markup in a slot
  // (data-ssr-tap), the app's button of the same name when the server's button leaves (bind). A
  // tap the app shows no such button for (a saved favourite says "Remove ...", a sold-out product
  // "Out of Stock") is dropped, and one whose button stays disabled 2 s more too. A drag (a
  // scroll) is no tap; a waiting button takes no second tap unless it counts them
  // (data-ssr-tap="repeat": the quantity's +).
  var down = null, taps = [], pumping = false, observer = null;
  function held(target) {
    var el = target && target.closest ? target.closest('button[disabled]') : null;
    return el && (el.hasAttribute('data-ssr-inert') || el.hasAttribute('data-ssr-tap')) ? el : null;
  }
  function hydrated(el) {
    return Object.keys(el).some(function (key) { return key.indexOf('__reactProps$') === 0; });
  }
  function nameOf(el) {
    return el.getAttribute('aria-label') || el.textContent.trim();
  }
  function named(name) {
    var buttons = document.querySelectorAll('button');
    for (var i = 0; i < buttons.length; i++) {
      if (!buttons[i].closest('[data-ssr-slot]') && nameOf(buttons[i]) === name && hydrated(buttons[i])) return buttons[i];
    }
    return null;
  }
  // The app's button for a slot's tap is chosen once, when the slot's markup leaves the page (a
  // mutation observer sees it before any new input): a later tap of the shopper's own, which
  // may rename a button (Remove ... / Add ... to favorites), never makes an old tap match.
  function bind() {
    taps.forEach(function (tap) {
      if (tap.live === undefined && tap.el.hasAttribute('data-ssr-tap') && !tap.el.isConnected) {
        tap.live = named(tap.name);
      }
    });
  }
  function liveButton(tap) {
    if (!tap.el.hasAttribute('data-ssr-tap')) {
      return tap.el.isConnected && !tap.el.disabled && hydrated(tap.el) ? tap.el : null;
    }
    bind();
    if (tap.live === undefined) return null;  // the server's markup is still there
    // The app shows no such button, or no longer: React keeps the element and renames it when
    // its state arrives (a favourite already saved turns "Add ..." into "Remove ...").
    if (!tap.live || !tap.live.isConnected || nameOf(tap.live) !== tap.name) return false;
    return tap.live.disabled ? null : tap.live;  // busy a moment (the cart answering): wait
  }
  function mark(el, busy) {
    if (busy) {
      el.setAttribute('aria-busy', 'true');
      if (window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
        el.style.opacity = '0.6';
      } else {
        el.classList.add('animate-pulse');  // the build's pulse, as the page's skeletons
      }
      el.style.cursor = 'progress';
    } else if (!taps.some(function (tap) { return tap.el === el; })) {
      el.removeAttribute('aria-busy');
      el.classList.remove('animate-pulse');
      el.style.opacity = '';
      el.style.cursor = '';
    }
  }
  function pump(tries, grace) {
    var tap = taps[0];
    if (!tap) {
      pumping = false;
      if (observer) observer.disconnect();
      observer = null;
      return;
    }
    var button = liveButton(tap);
    var gone = !tap.el.isConnected;
    if (button || button === false || (gone && grace >= 40) || tries >= 1200) {
      taps.shift();
      mark(tap.el, false);
      if (button) button.click();
      setTimeout(function () { pump(0, 0); }, 50);
    } else {
      setTimeout(function () { pump(tries + 1, gone ? grace + 1 : 0); }, 50);
    }
  }
  document.addEventListener('pointerdown', function (e) {
    down = { el: held(e.target), x: e.clientX, y: e.clientY };
  }, true);
  document.addEventListener('pointercancel', function () { down = null; }, true);
  document.addEventListener('pointerup', function (e) {
    var start = down, el = held(e.target);
    down = null;
    if (!el || !start || start.el !== el || Math.abs(e.clientX - start.x) > 10 || Math.abs(e.clientY - start.y) > 10
        || (el.getAttribute('aria-busy') === 'true' && el.getAttribute('data-ssr-tap') !== 'repeat')) return;
    taps.push({ el: el, name: nameOf(el) });
    mark(el, true);
    if (!observer && window.MutationObserver) {
      observer = new MutationObserver(bind);
      observer.observe(document.body, { childList: true, subtree: true });
    }
    boot();
    if (!pumping) {
      pumping = true;
      pump(0, 0);
    }
  }, true);
  // After the first frame is painted (two animation frames), not while the page is parsed.
  requestAnimationFrame(function () { requestAnimationFrame(function () { setTimeout(boot, 0); }); });
})(%s, %s);"""
_OG_IMAGE = re.compile(r'<meta content="[^"]*" property="og:image"/>')
_DIV = re.compile(r"<div[\s>]|</div>")


class ShellError(Exception):
    """A shell lacks something the server wants to fill (the build and the code disagree)."""


def static_dir() -> Path | None:
    """The folder the production build serves, or None when there is no production build."""
    from ...server.reflex_adapter import static_dir as built_static_dir

    return built_static_dir()


@dataclass(frozen=True)
class Shell:
    """A pre-rendered page and the hashes of its inline scripts."""

    html: str
    script_hashes: tuple[str, ...]


@lru_cache(maxsize=16)
def _read(path: Path, mtime_ns: int, folder: Path) -> Shell:  # mtime in the key: a rebuild is picked up
    html = inline_stylesheet(path.read_text(encoding="utf-8"), folder)
    return Shell(html, tuple(inline_script_hashes(html.encode("utf-8"))))


def inline_stylesheet(html: str, folder: Path) -> str:
    """The page with the build's style sheet in a ``<style>`` of its own head (issue 31).

    On a phone network the sheet was a second request before the first paint, sharing the
    link with the pictures: a round trip and a half on 2G. React still finds the sheet's
    ``<link>`` elements when it hydrates the head (so it adds none of its own), but they are
    inert: the sheet's link ``disabled`` (a disabled sheet is not fetched) and its preload for
    no medium. The file stays for the pages the server does not fill."""
    sheet = _STYLESHEET.search(html)
    if sheet is None:
        return html
    try:
        css = (folder / sheet.group(1).lstrip("/")).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return html
    css = css.replace("</", "<\\/")  # cannot end the style element early
    html = html[: sheet.start()] + f"<style>{css}</style>" + sheet.group(0).replace("/>", ' disabled=""/>') + html[
        sheet.end():]
    return _STYLE_PRELOAD.sub(lambda m: m.group(0).replace("/>", ' media="not all"/>'), html)


def load_shell(route: str, folder: Path | None = None) -> Shell | None:
    """The pre-rendered page of ``route`` (a key of :data:`SHELL_FILES`), or None without a build."""
    folder = folder if folder is not None else static_dir()
    if folder is None:
        return None
    for name in SHELL_FILES[route]:
        path = folder / name
        try:
            stat = path.stat()
        except OSError:
            continue
        return _read(path, stat.st_mtime_ns, folder)
    return None


@dataclass(frozen=True)
class Fill:
    """What to put in a shell."""

    slots: dict[str, str]
    head: str = ""  # tags appended to <head>
    title: str | None = None  # replaces the shell's <title> text
    # The address the shell was pre-rendered at, and the page's own: links the build resolved
    # against the shell's path (the skip link "#main", the footer's target-less legal links).
    shell_path: str = ""
    path: str = ""
    # Hashes of the inline scripts the renderer puts in ``head`` or a slot (the JSON-LD).
    script_hashes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FilledPage:
    html: str
    script_hashes: tuple[str, ...]  # of every inline script the page runs (its policy's)


def _slot_span(html: str, name: str) -> tuple[int, int]:
    """Start and end offsets of the inner HTML of the ``<div data-ssr-slot=name>`` element."""
    start_tag = re.search(r'<div[^>]*\sdata-ssr-slot="' + re.escape(name) + r'"[^>]*>', html)
    if start_tag is None:
        raise ShellError(f"the page shell has no slot {name!r}")
    depth = 1
    for match in _DIV.finditer(html, start_tag.end()):
        depth += -1 if match.group(0) == "</div>" else 1
        if depth == 0:
            return start_tag.end(), match.start()
    raise ShellError(f"the slot {name!r} is not closed")


def fill_page(shell: Shell, what: Fill) -> FilledPage:
    """``shell`` filled in, with the hashes of its inline scripts."""
    html, loader = _defer_boot(_filled(shell.html, what))
    loader_hashes = (script_hash(loader),) if loader is not None else ()
    return FilledPage(html, (*shell.script_hashes, *loader_hashes, *what.script_hashes))


def fill(shell: str, what: Fill) -> str:
    """``shell`` with its slots, title and head filled in (and its boot deferred)."""
    return _defer_boot(_filled(shell, what))[0]


def _filled(shell: str, what: Fill) -> str:
    html = shell
    if what.shell_path and what.path:
        html = html.replace(f'href="{what.shell_path}/', f'href="{escape(what.path, quote=True)}/')
    for name, inner in what.slots.items():
        start, end = _slot_span(html, name)
        html = html[:start] + inner + html[end:]
    if what.title is not None:
        html, count = _TITLE.subn(lambda _: f"<title>{escape(what.title)}</title>", html, count=1)
        if not count:
            raise ShellError("the page shell has no <title>")
    # Reflex's default og:image ("favicon.ico", relative) gives way to the absolute one in ``head``.
    html = _OG_IMAGE.sub("", html, count=1)
    # Marks a page whose content came from the server: the cards the app renders over it do not
    # play their entrance animation again (see assets/app.css).
    html = html.replace("<html ", "<html data-ssr=\"\" ", 1)
    return html.replace("</head>", what.head + "</head>", 1)


def _script_json(value) -> str:
    return json.dumps(value).replace("</", "<\\/")


def boot_loader(preloads: list[str], code: str) -> str:
    """The boot loader's script: the module preloads ``preloads``, then the boot module ``code``."""
    return _BOOT_LOADER % (_script_json(preloads), _script_json(code))


def defer_boot(html: str) -> str:
    """Start the app's scripts after the first paint instead of while the page is parsed.

    The page's content is already in this HTML, so the scripts (about 150 KB) no longer delay
    its first paint on a slow connection (their module preloads in the head and the boot module
    would otherwise be fetched before it); they start two animation frames later, or at the first
    interaction. The boot script element stays in place (React hydrates it), only its type changes."""
    return _defer_boot(html)[0]


def _defer_boot(html: str) -> tuple[str, str | None]:
    """:func:`defer_boot`'s page and the loader script it put in (None when the page has no boot
    module). The loader inserts the boot module as an inline script with the module's own text,
    which the policy allows by the hash the shell's file already gave it."""
    boot = _MODULE_BOOT.search(html)
    if boot is None:
        return html, None
    loader = boot_loader(_MODULEPRELOAD.findall(html), boot.group(1))
    html = html[: boot.start()] + f"<script>{loader}</script>" + html[boot.end() :]
    return inert_controls(_MODULEPRELOAD.sub("", html)), loader


def inert_controls(html: str) -> str:
    """Disable the page's buttons and fields until the app has hydrated them (the boot loader
    enables them again): they do nothing before, so a tap would be silently lost and a typed
    search dropped. Already disabled ones, and plain form fields, are left as they are."""

    def mark(match: re.Match) -> str:
        tag, attributes = match.group(1), match.group(2)
        if re.search(r"\sdisabled(?:[\s=/>]|$)", attributes) or any(native in attributes for native in _NATIVE_CONTROLS):
            return match.group(0)
        closing = "/" if attributes.endswith("/") else ""
        attributes = attributes[:-1] if closing else attributes
        return f'<{tag}{attributes} disabled="" data-ssr-inert=""{closing}>'

    return _CONTROL.sub(mark, html)
