"""A product's own page (/products/{id}): the product, a quantity to add, share links, related
products. Unknown and hidden products show the not-found page (and the server answers 404)."""

from __future__ import annotations

import dataclasses

import reflex as rx

from ... import routes
from ...display import ProductView, rated, whatsapp_chat_url, whatsapp_share_url
from ...models import User
from ...config.public_url import absolute_url
from ...services import NotFound
from ..actions import load_list, toast
from ..forms import int_arg
from ..guards import current_user, user_event
from .cart import CartState
from .header import with_header
from .reviews import ReviewsState
from .shared_views import product_page

MAX_QUANTITY = 99  # a quantity box's ceiling; the cart service checks the stock itself


@dataclasses.dataclass
class ProductDetail(ProductView):
    tags: list[str] = dataclasses.field(default_factory=list)
    category_href: str = ""


def requested_product_id(path: str) -> str:
    """The id in ``/products/{id}`` (or "" for another path)."""
    return routes.product_id_in((path or "").rstrip("/"))[:64]


class ProductPageState(rx.State):
    product: ProductDetail = ProductDetail()
    related: list[ProductView] = []
    status: str = "loading"  # loading, found, missing or failed
    shown_for: str = ""  # the product id status speaks of (the address's, once loaded)
    quantity: int = 1
    share_url: str = ""

    @rx.var
    def page_title(self) -> str:
        if self.status == "found":
            return f"{self.product.name} | Discount Deals"
        if self.status == "missing":
            return "Page not found | Discount Deals"
        return "Product | Discount Deals"

    @rx.var
    def whatsapp_url(self) -> str:
        if not self.share_url:
            return ""
        return whatsapp_share_url(self.product.name, self.product.price_text, self.share_url)

    @rx.var
    def chat_url(self) -> str:
        """"Chat with us on WhatsApp" about this product ("" without DD_WHATSAPP_NUMBER)."""
        if not self.share_url:
            return ""
        return whatsapp_chat_url(f"Hello, I have a question about {self.product.name}: {self.share_url}")

    @rx.var
    def max_quantity(self) -> int:
        return max(1, min(self.product.stock, MAX_QUANTITY))

    @rx.var
    def shown_status(self) -> str:
        """``status``, but "loading" while what the tab holds is for another address: a reload
        hydrates the tab's last product page before this page's load runs (it flashed the
        previous product, and a tap then added that one)."""
        return self.status if self.shown_for == requested_product_id(self.router.url.path) else "loading"

    def _forget(self) -> None:
        self.shown_for = ""
        self.product = ProductDetail()
        self.related = []
        self.status = "loading"
        self.quantity = 1
        self.share_url = ""

    def _load(self, requested: str) -> None:
        shown = product_page(requested)  # hidden ones too: not found
        detail = ProductDetail(**dataclasses.asdict(shown.card), tags=list(shown.tags),
                               category_href=shown.category_href)
        self.related = list(shown.related)
        self.product = detail
        self.quantity = min(max(1, self.quantity), max(1, detail.stock))
        self.share_url = absolute_url(routes.product_path(detail.id), self.router.url.origin)
        self.status, self.shown_for = "found", requested

    def _not_shown(self, error: Exception) -> None:
        """Unknown and hidden products read as not found (the server answers 404), anything else failed."""
        self._forget()
        self.status = "missing" if isinstance(error, NotFound) else "failed"
        self.shown_for = requested_product_id(self.router.url.path)

    @rx.event
    @with_header
    async def load(self):
        """The product, then its reviews (``ReviewsState``), in this one event."""
        requested = requested_product_id(self.router.url.path)
        if requested != self.product.id:
            self._forget()
            yield
        for update in load_list(self, lambda: self._load(requested), f"product page {self.router.url.path}",
                                loading=None, failed=None, on_error=self._not_shown):
            yield update
        reviews = await self.get_state(ReviewsState)
        await reviews._load_for(requested if self.status == "found" else "", await current_user(self))

    @user_event
    async def post_review(self, user: User, form: dict):
        """The reviews' form (``ReviewsState``); the stars at the top then show the new average
        at once (the shared page view follows within a second)."""
        reviews = await self.get_state(ReviewsState)
        async for update in reviews._post(user, form):
            yield update
        if self.status == "found" and self.product.id == reviews.product_id:
            self.product = rated(self.product, reviews.rating, reviews.review_count)

    @rx.event
    def change_quantity(self, step: int):
        self.quantity = min(max(1, self.quantity + int_arg(step)), self.max_quantity)

    @rx.event
    def add_to_cart(self, seq: int = 0):
        """'Add to Cart' with the chosen quantity (``seq``: the tap, components/optimistic.py)."""
        if self.status != "found" or self.product.stock <= 0:
            return CartState.add_quantity(self.product.id, 0, seq)  # nothing added: the badge goes back
        return CartState.add_quantity(self.product.id, self.quantity, seq)

    @rx.event
    def copy_link(self):
        if not self.share_url:
            return
        return [
            rx.set_clipboard(self.share_url),
            toast(("Link copied", "Paste it anywhere to share this deal.", "success")),
        ]
