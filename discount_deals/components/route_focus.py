"""After a route change, focus the new page's main heading and announce it (WCAG 2.4.3, 4.1.3).

A single-page app swaps the content without a page load, so a screen reader would stay on the
old focus and say nothing. This script, in every page's head, watches history changes that
change the path, waits for the new page's ``main h1``, focuses it (tabindex -1, no scrolling)
and puts its text in a polite live region. It also clears the marks of a first HTML filled by
the server (``html[data-ssr]``, its head tags), which describe only the page first loaded.
Changes of the query alone (filters, pages of a list) leave the focus where it is.
"""

ROUTE_FOCUS_JS = """
(function () {
  var last = location.pathname, timer = null;
  function region() {
    var r = document.getElementById('route-announcer');
    if (!r) {
      r = document.createElement('div');
      r.id = 'route-announcer';
      r.className = 'sr-only';
      r.setAttribute('aria-live', 'polite');
      r.setAttribute('aria-atomic', 'true');
      document.body.appendChild(r);
    }
    return r;
  }
  function settle(previous, previousText, started) {
    var h = document.querySelector('#main h1') || document.querySelector('main h1') || document.querySelector('h1');
    var same = !!h && h === previous && h.textContent === previousText;
    if (!h || same || !h.textContent.trim()) {
      // The new page's heading has not arrived yet (its data comes over the websocket).
      if (Date.now() - started < 10000) timer = setTimeout(function () { settle(previous, previousText, started); }, 50);
      return;
    }
    h.setAttribute('tabindex', '-1');
    h.focus({ preventScroll: true });
    var r = region();
    r.textContent = '';
    setTimeout(function () { r.textContent = h.textContent.trim() + ' page'; }, 100);
  }
  function changed() {
    if (location.pathname === last) return;
    last = location.pathname;
    document.documentElement.removeAttribute('data-ssr');
    document.querySelectorAll('[data-ssr-head]').forEach(function (n) { n.remove(); });
    clearTimeout(timer);
    var previous = document.querySelector('#main h1') || document.querySelector('main h1') || document.querySelector('h1');
    var previousText = previous ? previous.textContent : '';
    timer = setTimeout(function () { settle(previous, previousText, Date.now()); }, 0);
  }
  ['pushState', 'replaceState'].forEach(function (name) {
    var original = history[name];
    history[name] = function () {
      var result = original.apply(this, arguments);
      changed();
      return result;
    };
  });
  window.addEventListener('popstate', changed);
})();
"""
