"""Reflex State classes, as packages by area: ``shop/`` (the storefront), ``account/`` (session,
login, profile, orders) and ``admin/`` (the back office), over shared modules: ``guards`` (the
one "signed in" and "admin" check), ``actions`` (the one busy/toast/error helper family),
``forms`` and ``paging``. Each state inherits rx.State directly (or through a Reflex mixin) and
calls services, never the HTTP API."""
