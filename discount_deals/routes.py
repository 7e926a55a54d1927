"""Route paths of the storefront, in one place."""

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
