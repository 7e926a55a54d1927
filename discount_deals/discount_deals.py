"""The Reflex app: the API mounted under /api and the pages. Nothing else lives here."""

import reflex as rx

from .server import metrics, tab_states
from . import routes
from .api import create_api
from .web.frames import encode_frames_with_orjson
from .web.security import hand_websocket_origins_to_us
from .web import body_limits
from .web.caching import StaticCaching
from .web.site import site
from .server.lifespan import calm_garbage_collector, migrate_in_development, worker_in_development
from .components.route_focus import ROUTE_FOCUS_JS
from .components.offline import offline_bar
from .components.toasts import toaster
from .server.logs import configure_logging
from .config.settings import get_settings
from .web.first_html import render as first_html
from .pages.admin import admin
from .pages.auth import login, register
from .pages.password_reset import reset_password
from .pages.undo_change import undo_change
from .pages.unsubscribe import unsubscribe
from .pages.legal import cookies, privacy, terms
from .pages.cart import cart
from .pages.checkout import checkout
from .pages.delivery_sheet import delivery_sheet_page
from .pages.favorites import favorites
from .pages.home import home
from .pages.not_found import not_found
from .pages.orders import order_detail, orders
from .pages.receipt import order_receipt
from .pages.credit_note import credit_note_page
from .pages.product import product_page
from .pages.products import products
from .pages.profile import profile
from .pages.sample_home import sample_home
from .state.account.auth import LoginState, RegisterState
from .state.account.order_detail import OrderDetailState
from .state.account.order_returns import OrderReturnsState
from .state.account.receipt import ReceiptState
from .state.account.credit_note import CreditNoteState
from .state.account.notification_prefs import NotificationPrefsState
from .state.account.orders import OrdersState
from .state.account.password_reset import PasswordResetState
from .state.account.undo_change import UndoChangeState
from .state.account.unsubscribe import UnsubscribeState
from .state.account.profile import ProfileState
from .state.admin.gate import AdminState
from .state.admin.delivery_sheet import DeliverySheetState
from .state.shop.cart import CartState
from .state.shop.catalog import HomeState, ProductsState
from .state.shop.checkout import CheckoutState
from .state.shop.deal_offer import DealOfferState
from .state.shop.favorites import FavoritesState
from .state.shop.header import HeaderState, does_header_work
from .state.shop.not_found import NotFoundState
from .state.shop.product import ProductPageState
from .server.timers import release_unpaid_orders
from .worker.hook import install_commit_hook

configure_logging()
# A transaction that queued messages nudges the worker once it commits (discount_deals.worker).
install_commit_hook()

# Every page checks the session and fills the header's cart and favourites badges: in its own
# load event where that does it (state/shop/header.with_header), else in one event before it.
LAYOUT_LOAD = [HeaderState.load]


def page_load(on_load: list) -> list:
    """A page's on-load events: the header's work once, inside its first handler or before it."""
    return on_load if on_load and does_header_work(on_load[0]) else [*LAYOUT_LOAD, *on_load]


PAGES = [
    (routes.HOME, home, "Discount Deals | Discover Amazing Deals", [HomeState.load]),
    (routes.TEST_HOME, sample_home, "Discount Deals", [HomeState.load]),
    (routes.PRODUCTS, products, "All Products | Discount Deals", [ProductsState.load]),
    (routes.PRODUCT_DETAIL, product_page, ProductPageState.page_title, [ProductPageState.load]),
    (routes.CART, cart, "Shopping Cart | Discount Deals", [CartState.load_page]),
    (routes.CHECKOUT, checkout, "Checkout | Discount Deals", [CheckoutState.load]),
    (routes.FAVORITES, favorites, "My Favorites | Discount Deals", [FavoritesState.load_page, DealOfferState.load]),
    (routes.LOGIN, login, "Login | Discount Deals", [LoginState.load]),
    (routes.REGISTER, register, "Create Account | Discount Deals", [RegisterState.load]),
    (routes.RESET_PASSWORD, reset_password, "Reset your password | Discount Deals", [PasswordResetState.load]),
    (routes.UNSUBSCRIBE, unsubscribe, "Email preferences | Discount Deals", [UnsubscribeState.load]),
    (routes.UNDO_CHANGE, undo_change, "Undo a change | Discount Deals", [UndoChangeState.load]),
    (routes.PROFILE, profile, "My Profile | Discount Deals", [ProfileState.load, NotificationPrefsState.load]),
    (routes.ORDERS, orders, "My Orders | Discount Deals", [OrdersState.load]),
    (routes.ORDER_DETAIL, order_detail, "Order Details | Discount Deals", [OrderDetailState.load, OrderReturnsState.load]),
    (routes.ORDER_RECEIPT, order_receipt, "Receipt | Discount Deals", [ReceiptState.load]),
    (routes.RETURN_CREDIT_NOTE, credit_note_page, "Credit note | Discount Deals", [CreditNoteState.load]),
    (routes.ADMIN, admin, "Admin Dashboard | Discount Deals", [AdminState.load]),
    (routes.DELIVERY_SHEET, delivery_sheet_page, "Delivery sheet | Discount Deals", [DeliverySheetState.load]),
    (routes.PRIVACY, privacy, "Privacy Policy | Discount Deals", []),
    (routes.TERMS, terms, "Terms of Service | Discount Deals", []),
    (routes.COOKIES, cookies, "Cookie Policy | Discount Deals", []),
    ("404", not_found, "Page not found | Discount Deals", [NotFoundState.log_not_found]),
]

app = rx.App(
    api_transformer=site(create_api()),
    toaster=toaster(),
    stylesheets=["/app.css"],
    head_components=[
        rx.el.meta(name="theme-color", content="#c2410c"),
        # 250 bytes instead of the 4 KB favicon.ico a browser fetches by default.
        rx.el.link(rel="icon", href="/favicon.svg", type="image/svg+xml"),
        # Installable (issue 31): the web app manifest, and the icon iOS puts on the home screen.
        rx.el.link(rel="manifest", href="/manifest.webmanifest"),
        rx.el.link(rel="apple-touch-icon", href="/icons/apple-touch-icon.png"),
        rx.el.script(
            # A click on the mobile menu's backdrop (the dialog element itself) closes it.
            "document.addEventListener('click',function(e){var d=e.target;"
            "if(d&&d.tagName==='DIALOG'&&d.classList.contains('drawer')){d.close();}});"
        ),
        rx.el.script(ROUTE_FOCUS_JS),
        # The browser's side of the storefront: search box, phone fields, ... (assets/shop.js).
        rx.el.script(src="/shop.js", defer=True),
    ],
)
# The offline bar in place of Reflex's connection toast (components/offline.py). An app wrap is
# the parent of the whole app: the bar sits in a fragment, beside it.
app.app_wraps[(5, "Overlay")] = lambda stateful: rx.fragment(offline_bar()) if stateful else None
# Tab states in memory with a bounded lifetime (no Redis), or in Redis (discount_deals/server/tab_states.py).
tab_states.install(app, get_settings().ui.state_ttl_seconds, get_settings().ui.closed_tab_seconds)
# Each UI event's time and the gauges of /api/metrics (discount_deals/server/metrics.py).
metrics.install(app)
app.register_lifespan_task(migrate_in_development)
app.register_lifespan_task(calm_garbage_collector)
app.register_lifespan_task(worker_in_development)
# The websocket's origin check is web/security.py's (same origin or DD_CORS_ORIGINS).
hand_websocket_origins_to_us(app)
# Reflex's upload endpoint answers only tabs with a live websocket (web/body_limits.py).
body_limits.install(app)
# The websocket's packets are encoded by orjson (discount_deals/web/frames.py).
encode_frames_with_orjson(app)
SITE_DESCRIPTION = "Discounted products from Shoprite, Melcom and more, in one place."
# A product page's description is the server's (discount_deals.web.first_html): the app adds none, or
# the browser would end up with two.
DESCRIPTIONS = {
    routes.HOME: first_html.HOME_DESCRIPTION,
    routes.TEST_HOME: first_html.HOME_DESCRIPTION,
    routes.PRODUCTS: first_html.PRODUCTS_DESCRIPTION,
    routes.PRODUCT_DETAIL: None,
}

for route, component, title, on_load in PAGES:
    app.add_page(
        component,
        route=route,
        title=title,
        description=DESCRIPTIONS.get(route, SITE_DESCRIPTION),
        image="/og-image.png",
        on_load=page_load(on_load),
    )
# Unpaid mobile-money orders give their stock back when their time is up.
app.register_lifespan_task(release_unpaid_orders)


def served() -> StaticCaching:
    """What the production server runs (launcher.APP_TARGET): Reflex's app inside the web
    shell's outermost layer, which says how long files may be kept (web/caching.py). It sits
    outside Reflex's own CORS layers, whose ``Vary: Origin`` it takes off files that are the
    same for every origin."""
    return StaticCaching(app())
