/* Discount Deals' service worker (issue 31): the shop on a phone that loses its network.
 *
 * Written into each production build by discount_deals/web/service_worker.py, which fills in
 * the Workbox version and the list of files to keep (the storefront's code, the app's empty
 * shell, its icons). Workbox (Google's maintained service-worker library, from npm) does the
 * caching; this file only says what goes where.
 *
 * - The storefront's code is kept at install: a later visit, or a navigation with no network,
 *   fetches none of it.
 * - Pages: the network first (what the shop says now), else the last copy (offline, or no
 *   answer within 4 s); the last 40 pages are kept. The catalogue's pages carry their products
 *   in their first HTML, so the last ones seen stay readable offline (those the app opened
 *   without a page load are fetched for keeping when the page asks).
 * - Product pictures: from the cache at once, refreshed behind; the last 150 are kept.
 * - A page never seen, offline: the app's empty shell, which shows the offline bar.
 * The back office and the API are never kept.
 */
importScripts('/workbox-__WORKBOX_VERSION__/workbox-sw.js');
workbox.setConfig({ modulePathPrefix: '/workbox-__WORKBOX_VERSION__/', debug: false });

const { precacheAndRoute, cleanupOutdatedCaches, matchPrecache } = workbox.precaching;
const { registerRoute, setCatchHandler } = workbox.routing;
const { NetworkFirst, StaleWhileRevalidate } = workbox.strategies;
const { ExpirationPlugin } = workbox.expiration;
const { CacheableResponsePlugin } = workbox.cacheableResponse;

const SHELL = '/__spa-fallback.html';
const PRIVATE = /^\/(api|admin|_event|_upload)(\/|$)/;

precacheAndRoute(__PRECACHE__);
cleanupOutdatedCaches();
// The page that installed the worker is served by it from now on (it keeps the pages and
// pictures of this first visit too); the worker only ever adds copies, so taking over is safe.
workbox.core.clientsClaim();

const pages = new NetworkFirst({
  cacheName: 'dd-pages',
  networkTimeoutSeconds: 4,
  plugins: [
    new CacheableResponsePlugin({ statuses: [200] }),
    new ExpirationPlugin({ maxEntries: 40, maxAgeSeconds: 7 * 24 * 3600, purgeOnQuotaError: true }),
  ],
});
registerRoute(
  ({ request, url }) => request.mode === 'navigate' && url.origin === self.location.origin && !PRIVATE.test(url.pathname),
  pages,
);

// A catalogue page the app opened itself (no page load went through here): the page asks for
// its first HTML to be kept too (assets/shop.js), so it is readable offline as well.
const CATALOGUE = /^\/($|products(\/[^/]+)?$|test-home$)/;
self.addEventListener('message', (event) => {
  const data = event.data || {};
  if (data.type !== 'keep-page' || typeof data.url !== 'string') return;
  const url = new URL(data.url, self.location.origin);
  if (url.origin !== self.location.origin || !CATALOGUE.test(url.pathname)) return;
  event.waitUntil(pages.handle({ event, request: new Request(url.href, { credentials: 'same-origin' }) }).catch(() => undefined));
});

registerRoute(
  ({ url }) => url.origin === self.location.origin && url.pathname.startsWith('/api/media/'),
  new StaleWhileRevalidate({
    cacheName: 'dd-pictures',
    plugins: [
      new CacheableResponsePlugin({ statuses: [200] }),
      new ExpirationPlugin({ maxEntries: 150, maxAgeSeconds: 30 * 24 * 3600, purgeOnQuotaError: true }),
    ],
  }),
);

setCatchHandler(async ({ request }) => {
  if (request.mode === 'navigate') {
    return (await matchPrecache(SHELL)) || Response.error();
  }
  return Response.error();
});
