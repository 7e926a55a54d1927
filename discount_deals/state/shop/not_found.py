"""State of the not-found page: it logs every unknown route on the server."""

import logging

import reflex as rx

log = logging.getLogger("discount_deals.pages")


class NotFoundState(rx.State):
    @rx.event
    def log_not_found(self):
        log.warning("404 page not found: %s", self.router.url.path)
