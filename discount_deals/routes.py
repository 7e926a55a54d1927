"""Route paths of the storefront, in one place: each page's route, and the function that builds
its address (``order_path(order_id)``, ``product_path(product_id)``, ``reset_path(token)``, ...).

Nothing else spells these paths out (tests/unit/test_routes.py checks the package). The builders
join with ``+`` so that they take a Reflex Var as well as a string (a link in a component:
``routes.order_path(order.id)``). Messages make them absolute with their links' base
(``links.to(routes.reset_path(token))``).
"""

from urllib.parse import quote, urlencode

HOME = "/"
TEST_HOME = "/test-home"
PRODUCTS = "/products"
PRODUCT_DETAIL = "/products/[product_id]"
CART = "/cart"
CHECKOUT = "/checkout"
FAVORITES = "/favorites"
ADMIN = "/admin"
LOGIN = "/login"
REGISTER = "/register"
PROFILE = "/profile"
ORDERS = "/orders"
ORDER_DETAIL = "/orders/[order_id]"
ORDER_RECEIPT = "/orders/[order_id]/receipt"
RETURNS = "/returns"
RETURN_CREDIT_NOTE = "/returns/[return_id]/credit-note"
RESET_PASSWORD = "/reset-password"
UNSUBSCRIBE = "/unsubscribe"
UNDO_CHANGE = "/undo-change"
DELIVERY_SHEET = "/admin/delivery-sheet"
PRIVACY = "/privacy"
TERMS = "/terms"
COOKIES = "/cookies"

# What the shopper calls each page, for sentences that name one ("you go back to Checkout").
PAGE_NAMES = {
    HOME: "the home page",
    TEST_HOME: "the home page",
    PRODUCTS: "All Products",
    CART: "your Shopping Cart",
    CHECKOUT: "Checkout",
    FAVORITES: "My Favorites",
    ADMIN: "the Admin Dashboard",
    DELIVERY_SHEET: "the delivery sheet",
    PROFILE: "My Profile",
    ORDERS: "My Orders",
}


def page_name(target: str) -> str:
    """The name of the page a same-site path (query and fragment allowed) leads to."""
    path = target.split("?", 1)[0].split("#", 1)[0].rstrip("/") or HOME
    if path in PAGE_NAMES:
        return PAGE_NAMES[path]
    if path.startswith(ORDERS + "/"):
        return "your order"
    if path.startswith(PRODUCTS + "/"):
        return "the product"
    return "where you were"


# --- addresses ---------------------------------------------------------------------------------


def product_path(product_id):
    """A product's page: ``/products/{id}``."""
    return PRODUCTS + "/" + product_id


def products_path(**parameters: str | int) -> str:
    """The product listing with these query parameters (blank ones left out), e.g.
    ``products_path(brand="melcom")`` → ``/products?brand=melcom``."""
    query = {name: value for name, value in parameters.items() if value}
    return f"{PRODUCTS}?{urlencode(query)}" if query else PRODUCTS


ADMIN_LIST_VIEW = "list"  # ?view=list: the tab's list, not what was open there (state.admin.gate)


def admin_path(tab: str = "", *, list_view: bool = False) -> str:
    """The back office, opened on ``tab`` (the default tab when blank); ``list_view``: on its
    list, whatever was open there (an order), as a link from elsewhere means."""
    if not tab:
        return ADMIN
    return f"{ADMIN}?{urlencode({'tab': tab, **({'view': ADMIN_LIST_VIEW} if list_view else {})})}"


def admin_open_path(tab: str, object_id: str) -> str:
    """The back office's ``tab`` with one of its objects open (``/admin?tab=orders&open=<id>``):
    an order opened there is a step Back undoes (state.admin.gate)."""
    return f"{ADMIN}?{urlencode({'tab': tab, 'open': object_id})}"


def category_path(slug: str) -> str:
    """The product listing filtered to one category."""
    return f"{PRODUCTS}?category={quote(slug)}"


def order_path(order_id):
    """An order's page: ``/orders/{id}``."""
    return ORDERS + "/" + order_id


def receipt_path(order_id):
    """An order's printable receipt: ``/orders/{id}/receipt``."""
    return order_path(order_id) + "/receipt"


def credit_note_path(return_id):
    """A refunded return's printable credit note: ``/returns/{id}/credit-note``."""
    return RETURNS + "/" + return_id + "/credit-note"


def reset_path(token: str = "") -> str:
    """Forgot password; with ``token``, the emailed link that sets a new password."""
    return f"{RESET_PASSWORD}?token={quote(token, safe='')}" if token else RESET_PASSWORD


def undo_change_path(token: str) -> str:
    """The page that undoes a changed email or phone (the link sent to the old ones)."""
    return f"{UNDO_CHANGE}?token={quote(token, safe='')}"


def unsubscribe_path(token: str) -> str:
    """The page that turns one topic's emails off (every email's link)."""
    return f"{UNSUBSCRIBE}?token={quote(token)}"


def _id_under(path: str, page: str) -> str:
    prefix = page + "/"
    return path[len(prefix):] if path.startswith(prefix) else ""


def product_id_in(path: str) -> str:
    """What follows ``/products/`` in ``path`` ("" for another path)."""
    return _id_under(path, PRODUCTS)


def order_id_in(path: str) -> str:
    """What follows ``/orders/`` in ``path`` ("" for another path)."""
    return _id_under(path, ORDERS)
