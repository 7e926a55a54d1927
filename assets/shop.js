/* The storefront's browser side (issue 31): what must answer at once on a phone network where a
 * round trip takes 100-800 ms, so it cannot wait for the server.
 *
 * - dd.formatPhone(input): a Ghanaian number written the usual way ("024 123 4567") when the
 *   shopper leaves the field; the server only checks it (typing is the browser's).
 * - Enter in a field marked data-enter="done" leaves the field instead of submitting its form.
 * - The header's search combobox: its list opens only for suggestions of the text as it is now,
 *   and closes on Enter, Escape, a tap outside and every navigation.
 * - The code of every storefront route is fetched in the background once the first page is up
 *   and the network quiet, so a later navigation fetches no code (the back office's is not).
 * - The service worker (/sw.js) is registered then too; offline, the page says so ("You're
 *   offline", the bar of components/offline.py) and a link opens the page the worker kept, as
 *   a whole page (the app itself cannot load a page's data without its websocket).
 * - A flash sale's countdown ("Ends in 5h 12m", [data-ends-at]) keeps counting down between
 *   page loads.
 *
 * Loaded by every page (a plain script: its functions are on window.dd before React starts).
 */
(function () {
  'use strict';
  var dd = (window.dd = window.dd || {});

  // --- phone numbers ---------------------------------------------------------------------------

  /* "0241234567" -> "024 123 4567", "+233241234567" / "233241234567" -> "+233 24 123 4567";
   * anything else is left as typed (the server says what is wrong with it). */
  dd.phoneText = function (value) {
    var text = String(value || '').trim();
    var digits = text.replace(/[\s\-().]/g, '');
    if (/^0\d{9}$/.test(digits)) {
      return digits.slice(0, 3) + ' ' + digits.slice(3, 6) + ' ' + digits.slice(6);
    }
    var international = digits.replace(/^\+?233/, '');
    if (international !== digits && /^\d{9}$/.test(international)) {
      return '+233 ' + international.slice(0, 2) + ' ' + international.slice(2, 5) + ' ' + international.slice(5);
    }
    return text;
  };

  /* Format the field in place and give back its value (for the event that checks it). */
  dd.formatPhone = function (input) {
    if (!input) return '';
    var shown = dd.phoneText(input.value);
    if (shown !== input.value) input.value = shown;
    return input.value;
  };

  document.addEventListener('keydown', function (e) {
    var t = e.target;
    if (e.key === 'Enter' && t && t.getAttribute && t.getAttribute('data-enter') === 'done') {
      e.preventDefault();
      t.blur();
    }
  });

  // --- fields that submit their form after a pause in typing ------------------------------------
  // (data-live-submit="400": the listing's search). One timer per form, ours: Enter submits at
  // once and cancels it, so a search is one event, never a second one echoing the same text.
  // Enter after the pause has already sent the text (a shopper who stops, then presses Enter)
  // sends nothing more: the field remembers what it sent until the next keystroke, and a new
  // field (the server remounts it when the listing changes under it) remembers nothing.

  var liveTimers = new WeakMap(), liveSent = new WeakMap();
  function liveField(form) { return form && form.querySelector('[data-live-submit]'); }
  document.addEventListener('input', function (e) {
    var t = e.target, form = t && t.form;
    if (!form || !t.getAttribute || !t.hasAttribute('data-live-submit')) return;
    liveSent.delete(t);
    clearTimeout(liveTimers.get(form));
    liveTimers.set(form, setTimeout(function () {
      liveTimers.delete(form);
      form.requestSubmit();
    }, Number(t.getAttribute('data-live-submit')) || 400));
  });
  document.addEventListener('submit', function (e) {
    var form = e.target, field = liveField(form);
    clearTimeout(liveTimers.get(form));
    liveTimers.delete(form);
    if (!field) return;
    if (liveSent.has(field) && liveSent.get(field) === field.value) {
      e.preventDefault();
      e.stopPropagation(); // before React's listener on its root: no event for the server
      return;
    }
    liveSent.set(field, field.value);
  }, true);

  // --- the header's search combobox ------------------------------------------------------------

  var SEARCH = 'header-search', LIST = 'header-suggestions';
  var closed = true; // until the shopper types: Enter, Escape, leaving and navigating close it

  function normal(text) { return String(text || '').split(/\s+/).filter(Boolean).join(' ').toLowerCase(); }

  function parts() {
    var input = document.getElementById(SEARCH), list = document.getElementById(LIST);
    var options = list ? Array.prototype.slice.call(list.querySelectorAll('[role="option"]')) : [];
    return { input: input, list: list, options: options };
  }

  function choose(p, index) {
    p.options.forEach(function (o, i) { o.setAttribute('aria-selected', i === index ? 'true' : 'false'); });
    if (index >= 0) { p.input.setAttribute('aria-activedescendant', p.options[index].id); p.options[index].scrollIntoView({ block: 'nearest' }); }
    else if (p.input) { p.input.removeAttribute('aria-activedescendant'); }
  }

  function current(p) {
    for (var i = 0; i < p.options.length; i++) { if (p.options[i].getAttribute('aria-selected') === 'true') return i; }
    return -1;
  }

  /* Open only while the shopper is in the field, has typed since it last closed, and the
   * suggestions shown are for the words in it now (an answer for older text waits). */
  function update() {
    var p = parts();
    if (!p.input || !p.list) return;
    var open = !closed && document.activeElement === p.input && p.options.length > 0 &&
      normal(p.list.getAttribute('data-for')) === normal(p.input.value) && normal(p.input.value) !== '';
    if (open) p.list.setAttribute('data-open', ''); else p.list.removeAttribute('data-open');
    p.input.setAttribute('aria-expanded', open ? 'true' : 'false');
    if (!open) choose(p, -1);
  }

  dd.closeSuggestions = function () { closed = true; update(); };

  /* The listing's address for the words typed (as services' search_url writes it). */
  dd.searchUrl = function (text) {
    var words = String(text || '').split(/\s+/).filter(Boolean).join(' ').slice(0, 100);
    return words ? '/products?' + new URLSearchParams({ search: words }).toString() : '/products';
  };

  document.addEventListener('input', function (e) {
    if (e.target && e.target.id === SEARCH) { closed = false; choose(parts(), -1); update(); }
  });
  document.addEventListener('focusout', function (e) {
    if (e.target && e.target.id === SEARCH) dd.closeSuggestions();
  });
  document.addEventListener('keydown', function (e) {
    if (!e.target || e.target.id !== SEARCH) return;
    var p = parts();
    var open = p.list && p.list.hasAttribute('data-open');
    if (e.key === 'Escape') { if (open) e.preventDefault(); dd.closeSuggestions(); return; }
    if (e.key === 'Enter') {
      var at = open ? current(p) : -1;
      if (at >= 0) {
        e.preventDefault();
        var link = p.options[at].querySelector('a');
        dd.closeSuggestions();
        if (link) link.click();
      } else {
        dd.closeSuggestions(); // the form searches for the words
      }
      return;
    }
    if (!open) return;
    var last = p.options.length - 1, pos = current(p);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      choose(p, e.key === 'ArrowDown' ? (pos >= last ? 0 : pos + 1) : (pos <= 0 ? last : pos - 1));
    }
  });
  // New suggestions (React fills the list and its data-for) and every navigation.
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var node = records[i].target;
      if (node.id === LIST || (node.closest && node.closest('#' + LIST))) { update(); return; }
    }
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-for'] });
  var pushState = history.pushState;
  history.pushState = function () {
    var result = pushState.apply(this, arguments);
    dd.closeSuggestions();
    return result;
  };
  window.addEventListener('popstate', dd.closeSuggestions);

  // --- every storefront route's code, in the background -----------------------------------------

  var PREFETCHED = 'data-dd-prefetch';
  var SKIPPED = /admin/; // the back office's code is big and only admins need it
  var BACK_OFFICE = /^\/admin(\/|$)/;

  function quiet(forMs) {
    var entries = performance.getEntriesByType('resource');
    var last = entries.length ? entries[entries.length - 1] : null;
    return !last || performance.now() - (last.responseEnd || last.startTime) > forMs;
  }

  function registerWorker() {
    if ('serviceWorker' in navigator && window.isSecureContext) {
      navigator.serviceWorker.register('/sw.js').catch(function () { /* no worker: the site still works */ });
    }
  }

  /* Preload every storefront route's module, then register the service worker: it keeps
   * copies of the same files, and finds them in the browser's cache instead of the network. */
  function prefetchRoutes() {
    var manifest = window.__reactRouterManifest;
    if (!manifest || document.querySelector('[' + PREFETCHED + ']')) return;
    var have = {}, pending = 0;
    function settled() { if (--pending === 0) registerWorker(); }
    document.querySelectorAll('link[href], script[src]').forEach(function (el) { have[el.href || el.src] = true; });
    performance.getEntriesByType('resource').forEach(function (e) { have[e.name] = true; });
    Object.keys(manifest.routes).forEach(function (id) {
      var route = manifest.routes[id];
      if (SKIPPED.test(id)) return;
      [route.module].concat(route.imports || []).forEach(function (href) {
        var url = new URL(href, location.href).href;
        if (!href || have[url]) return;
        have[url] = true;
        // modulepreload, not prefetch: the module is kept ready in the page's module map (a
        // prefetched file was asked for again, 304, once a service worker was registered).
        var link = document.createElement('link');
        link.rel = 'modulepreload';
        link.href = href;
        link.setAttribute(PREFETCHED, '');
        pending += 1;
        link.addEventListener('load', settled);
        link.addEventListener('error', settled);
        document.head.appendChild(link);
      });
    });
    if (pending === 0) registerWorker();
  }

  /* After the app has taken over and nothing has loaded for a second: the shopper's first
   * screen never waits behind code for screens they have not asked for. */
  (function waitForQuiet(tries) {
    // Staff in the back office seldom open the storefront from it: on their phone's data plan
    // the storefront's code (some 180 KB, fetched again by the worker's install, which keeps the
    // storefront for offline use) would only compete with their taps' answers. It waits until
    // they open a storefront page, in the app or anew.
    if (BACK_OFFICE.test(location.pathname)) return setTimeout(function () { waitForQuiet(tries); }, 2000);
    var live = window.__reactRouterManifest && !document.querySelector('[data-ssr-inert]');
    if (live && quiet(1000)) {
      (window.requestIdleCallback || setTimeout)(prefetchRoutes);
    } else if (tries < 240) {
      setTimeout(function () { waitForQuiet(tries + 1); }, 500);
    }
  })(0);

  /* A catalogue page the app opened (no page load went through the service worker): have the
   * worker keep its first HTML too, once the page has been shown for a moment, so the last
   * pages seen are readable offline. */
  var CATALOGUE = /^\/($|products(\/[^/]+)?$|test-home$)/, keepTimer = null;
  function keepPage() {
    clearTimeout(keepTimer);
    keepTimer = setTimeout(function () {
      var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
      if (worker && navigator.onLine && CATALOGUE.test(location.pathname)) {
        worker.postMessage({ type: 'keep-page', url: location.pathname + location.search });
      }
    }, 2000);
  }
  var pushed = history.pushState;
  history.pushState = function () {
    var result = pushed.apply(this, arguments);
    keepPage();
    return result;
  };
  window.addEventListener('popstate', keepPage);

  /* Back and Forward between two addresses a page put in the bar itself (state/address_bar
   * push_url): the router sees no page change when it comes back to the address it loaded, and
   * no on-load runs. The page's own hidden control asks its state to follow the address. */
  window.addEventListener('popstate', function () {
    setTimeout(function () {
      var follower = document.querySelector('[data-follows-history]');
      if (follower && follower.getAttribute('data-follows-history') === location.pathname.replace(/\/$/, '')) {
        follower.click();
      }
    }, 0);
  });

  // --- drafts ----------------------------------------------------------------------------------
  /* A form marked data-keep-draft keeps what was typed in this tab's session storage until the
   * server has saved it (state/drafts.py: its state forgets the draft then; a logout forgets them
   * all): a refresh on a slow network, or Back and Forward, emptied the address a shopper typed at
   * checkout (the longest thing they type), while the phone fields kept theirs. A field is filled
   * back only where it is empty. The name carries the account's id (another account signing in
   * on this tab meets none of it). */
  var DRAFT = 'dd-draft:';
  function draftKey(form) { return DRAFT + form.getAttribute('data-keep-draft'); }
  window.ddForgetDrafts = function (name) {
    try {
      Object.keys(sessionStorage).forEach(function (k) {
        if (k.indexOf(DRAFT + name) === 0) sessionStorage.removeItem(k);
      });
    } catch (err) { /* off */ }
  };
  document.addEventListener('input', function (e) {
    var form = e.target && e.target.form;
    if (!form || !form.hasAttribute('data-keep-draft')) return;
    var draft = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && el.value && el.type !== 'hidden' && el.type !== 'checkbox') draft[el.name] = el.value;
    });
    try { sessionStorage.setItem(draftKey(form), JSON.stringify(draft)); } catch (err) { /* full or off */ }
  }, true);
  function restoreDrafts() {
    document.querySelectorAll('form[data-keep-draft]').forEach(function (form) {
      var key = draftKey(form);
      if (form.__ddDraft === key) return;
      form.__ddDraft = key;
      var draft = null;
      try { draft = JSON.parse(sessionStorage.getItem(key) || 'null'); } catch (err) { draft = null; }
      if (!draft) return;
      Object.keys(draft).forEach(function (name) {
        var el = form.elements[name];
        if (el && !el.value && typeof draft[name] === 'string') el.value = draft[name];
      });
    });
  }
  new MutationObserver(restoreDrafts).observe(document.documentElement, { childList: true, subtree: true });

  // --- offline ---------------------------------------------------------------------------------

  function offline() {
    return !navigator.onLine || !!document.querySelector('#offline-bar[data-connection="lost"]');
  }

  function markOnline() {
    if (navigator.onLine) document.documentElement.removeAttribute('data-offline');
    else document.documentElement.setAttribute('data-offline', '');
  }
  window.addEventListener('online', markOnline);
  window.addEventListener('offline', markOnline);
  markOnline();

  /* Offline, a link to one of the shop's pages opens it as a whole page: the service worker
   * serves the copy it kept (a catalogue page with its products), or the app's shell. */
  document.addEventListener('click', function (e) {
    if (!offline() || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    var link = e.target && e.target.closest ? e.target.closest('a[href]') : null;
    if (!link || link.target || link.hasAttribute('download')) return;
    var url = new URL(link.href, location.href);
    if (url.origin !== location.origin || url.pathname.indexOf('/api/') === 0) return;
    e.preventDefault();
    e.stopPropagation();
    location.assign(url.href);
  }, true);
  // --- flash-sale countdowns (issue 34) ----------------------------------------------------------
  /* The server writes "Ends in 5h 12m" (services.flash_sales.countdown_text) and the end itself
   * (data-ends-at). The badge counts down to that end on the phone's clock when the clock agrees
   * with the text (within the text's minute, and a minute and a half for a page a cache kept); a phone
   * whose clock is wrong counts down from the text by the time elapsed here, ending up to a
   * minute late. A text the app writes anew (a page load) is taken as the new start. When a
   * sale ends on the page, a control the page offers (data-sale-ended) shows its prices again. */

  var countdowns = new WeakMap(), endTimer = null, overdue = {};

  dd.countdownText = function (minutesLeft) {
    if (minutesLeft <= 0) return 'Sale ended';
    var hours = Math.floor(minutesLeft / 60), minutes = minutesLeft % 60;
    return hours ? 'Ends in ' + hours + 'h ' + minutes + 'm' : 'Ends in ' + minutes + 'm';
  };

  function countdownEnd(badge, text, now) {
    var parts = /^Ends in (?:(\d+)h )?(\d+)m$/.exec(text);
    if (!parts) return null;
    var minutes = Number(parts[1] || 0) * 60 + Number(parts[2]);
    var end = badge.getAttribute('data-ends-at') || '';
    // Said to have ended here, and the server still sells at the sale's price: the phone's clock
    // is ahead, so count from the server's text.
    var exact = overdue[end] ? NaN : Date.parse(end);
    var left = exact - now, slack = 90000;  // a page a cache kept (30 s), the ticker's pace, the link
    if (left > (minutes - 1) * 60000 - slack && left <= (minutes + 1) * 60000 + slack) return exact;
    return now + minutes * 60000 + 59999;  // the server counts whole minutes down: at the latest
  }

  function tickCountdowns() {
    var now = Date.now(), next = Infinity, ended = false;
    document.querySelectorAll('[data-ends-at]').forEach(function (badge) {
      var node = badge.firstChild;
      if (!node || node.nodeType !== 3) return;
      var seen = countdowns.get(badge);
      if (!seen || seen.shown !== node.nodeValue) {
        var ends = countdownEnd(badge, node.nodeValue, now);
        if (ends === null) return;
        seen = { ends: ends, shown: node.nodeValue };
        countdowns.set(badge, seen);
      }
      var left = seen.ends - now;
      var shown = dd.countdownText(left > 0 ? Math.max(1, Math.floor(left / 60000)) : 0);
      if (shown !== node.nodeValue) {
        if (shown === 'Sale ended') ended = overdue[badge.getAttribute('data-ends-at') || ''] = true;
        node.nodeValue = seen.shown = shown;
      }
      if (seen.ends > now) next = Math.min(next, seen.ends - now);
    });
    clearTimeout(endTimer);
    if (next < 20000) endTimer = setTimeout(tickCountdowns, next + 50);  // the end itself, to the second
    // A second and a half later: the shop reads its catalogue's version once a second.
    if (ended) setTimeout(function () {
      var refresh = document.querySelector('[data-sale-ended]');
      if (refresh) refresh.click();
    }, 1500);
  }
  setInterval(tickCountdowns, 5000);
})();
