"""The site's web shell: what every answer of the site goes through, around the API and Reflex.

``site.py`` composes it: the public origin behind proxies (``proxy.py``), security headers, the
pages' Content-Security-Policy and the websocket's origin check (``security.py``, ``csp.py``),
pages at their own address without a redirect (``pages.py``), the first HTML of the pages that
show products (``first_html/``, compressed by ``compression.py``), and /robots.txt and
/sitemap.xml (``seo.py``). ``discount_deals.py`` wraps it around the API app (``api/``), which
knows nothing of it; nothing that renders (``state/``, ``components/``, ``pages/``) imports it.
"""
