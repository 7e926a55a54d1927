"""The Reflex app: the API mounted under /api and the pages. Nothing else lives here."""

import reflex as rx

from .api import create_app
from .logs import configure_logging
from .pages.home import home
from .pages.not_found import not_found
from .state.not_found import NotFoundState

configure_logging()

app = rx.App(api_transformer=create_app())
app.add_page(home, route="/", title="Discount Deals")
app.add_page(not_found, route="404", title="Page not found | Discount Deals", on_load=NotFoundState.log_not_found)
