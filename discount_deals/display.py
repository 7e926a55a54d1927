"""Plain view objects that screens show (state classes and the first HTML alike): already formatted.

Conversions from models live here so that pages never see models and every price is
formatted by services.money (re-exported here as money_text).
"""

from __future__ import annotations

import dataclasses
from urllib.parse import quote

from . import routes
from .models import Category, Product
from .services import flash_sales
from .services.cart import StockNote
from .services.money import api_amount, money_text
from .services.pricing import PriceNow, product_price
from .services.taxes import TaxLine
from .config.settings import get_settings


STAR = "\u2605"  # ★


@dataclasses.dataclass
class TaxLineView:
    """One tax row of a totals list: "VAT (15%)" and its amount."""

    label_text: str = ""
    amount_text: str = ""


def tax_line_label(line: TaxLine) -> str:
    """"Tax" (the spec's one line, its own word), "VAT (15%)", "NHIL (2.5%)"; ", included" when
    the amount is inside the prices rather than added to them."""
    rate = f"{line.rate.normalize():f}"
    name = line.label if line.code == "tax" else f"{line.label} ({rate}%)"
    return f"{name}, included" if line.included else name


def tax_line_views(lines: tuple[TaxLine, ...] | list[TaxLine]) -> list[TaxLineView]:
    """The tax rows of a basket or an order (an empty basket: one "Tax" row of nothing)."""
    if not lines:
        return [TaxLineView("Tax", money_text(0))]
    return [TaxLineView(tax_line_label(line), money_text(line.amount)) for line in lines]


@dataclasses.dataclass
class ProductFace:
    """What every face shows of a product: the cards and the product page (:class:`ProductView`)
    and the cart's lines alike, built by :func:`face_fields`."""

    name: str = ""
    description: str = ""
    brand: str = ""
    category: str = ""
    image_url: str = ""
    price_text: str = ""  # what the shopper pays (discount price when present)
    original_text: str = ""  # the list price, shown struck through when discounted
    has_discount: bool = False


def face_fields(product: Product, category: Category | None, paid, discounted: bool) -> dict[str, object]:
    """The :class:`ProductFace` fields of ``product`` paid at ``paid`` (the price in force now)."""
    return dict(
        name=product.name,
        description=product.description,
        brand=product.brand or "",
        category=category.name if category else "",
        image_url=product.image_url or get_settings().placeholder_image_url,
        price_text=money_text(paid),
        original_text=money_text(product.price),
        has_discount=discounted,
    )


@dataclasses.dataclass
class ProductView(ProductFace):
    id: str = ""
    category_slug: str = ""
    price_text: str = ""  # what the shopper pays (discount price when present)
    original_text: str = ""  # the list price, shown struck through when discounted
    save_text: str = ""  # how much the discount saves ("$8.32"); empty without a discount
    discount_percent: int = 0
    rating: float = 0.0
    rating_text: str = "0.0"
    full_stars: int = 0
    stars_on: str = ""  # "★★★★": the rating's whole stars, drawn as text (cheap to render)
    stars_off: str = "★★★★★"  # the rest, in grey
    stock: int = 0
    stock_text: str = ""
    status: str = "active"
    href: str = ""  # the product's own page
    review_count: int = 0  # published reviews (rating is their average when there are any)
    review_count_text: str = ""  # "12 reviews"; empty without reviews
    # A flash sale (services.flash_sales): "Ends in 5h 12m" from a day before the discount ends,
    # with the end as ISO text for the browser's ticker (assets/shop.js); "Limit 2 per customer".
    ends_text: str = ""
    ends_at: str = ""
    limit_text: str = ""


# Ghana keeps Greenwich Mean Time all year (UTC+0, no summer time): times are shown as GMT,
# the name shoppers and staff in Accra know.
GHANA_TIME_ZONE = "GMT"


@dataclasses.dataclass
class LineStockView:
    """A cart line's stock as the cart and the checkout show it (services.cart.stock_note):
    "Only 2 left" / "Sold out" when the line wants more than is left, and how many are."""

    stock_text: str = ""
    short: bool = False
    available: int = 0
    withdrawn: bool = False  # taken off sale: outside the totals, removed to check out


def line_stock(note: StockNote) -> dict[str, object]:
    """The :class:`LineStockView` fields of a line's stock note."""
    return dict(stock_text=note.text, short=note.short, available=note.available, withdrawn=note.withdrawn)


def price_moves(before: dict[str, str], lines: list) -> str:
    """"Shito now costs $15.00 (was $10.00)." for each line (a :class:`ProductFace` with a
    ``product_id``) whose price moved since ``before`` (price texts by product id) showed it."""
    return " ".join(f"{line.name} now costs {line.price_text} (was {before[line.product_id]})." for line in lines
                    if before.get(line.product_id, line.price_text) != line.price_text and not line.withdrawn)


def ghana_time(moment, pattern: str = "%d %b %Y, %H:%M") -> str:
    """An aware (or UTC) time as Accra reads it: "1 Dec 2026, 09:00 GMT"."""
    return f"{moment.strftime(pattern).lstrip('0')} {GHANA_TIME_ZONE}"


def returns_promise(days: int) -> str:
    """The cart's promise for DD_RETURN_DAYS (SPEC §9: "Free returns within 30 days"); blank when
    returns are off (0 days), so no page promises what the server refuses."""
    return f"Free returns within {days} day{'' if days == 1 else 's'}" if days > 0 else ""


def brand_name(brand: str) -> str:
    """A brand as shoppers read it ("shoprite" → "Shoprite"); brands are stored as the original
    client filters them, in lower case."""
    return " ".join(word[:1].upper() + word[1:] for word in str(brand or "").split())


def whatsapp_share_url(name: str, price_text: str, url: str) -> str:
    """A wa.me link whose message names the product, its price and its page."""
    return "https://wa.me/?text=" + quote(f"{name} for {price_text} at Discount Deals: {url}", safe="")


def rated(view, rating: float, count: int):
    """``view`` (a ProductView or a subclass) with another rating and review count."""
    on, off = stars_text(rating)
    return dataclasses.replace(
        view, rating=float(rating), rating_text=f"{float(rating):.1f}", full_stars=len(on), stars_on=on,
        stars_off=off, review_count=count, review_count_text=review_count_text(count),
    )


def whatsapp_chat_url(text: str) -> str:
    """A wa.me link that opens a chat with the shop (DD_WHATSAPP_NUMBER) with ``text`` typed in;
    "" when the shop has no WhatsApp number (the pages then show no chat link)."""
    number = get_settings().receipts.whatsapp_number
    return f"https://wa.me/{number}?text={quote(text, safe='')}" if number else ""


def whatsapp_order_share_url(site: str) -> str:
    """A wa.me link (no recipient: the shopper picks one) telling a friend where they shopped."""
    return "https://wa.me/?text=" + quote(f"I just ordered from Discount Deals, discounted products from top "
                                          f"retailers in Ghana: {site}", safe="")


def product_view(product: Product, category: Category | None) -> ProductView:
    now = product_price(product)  # the discount counts only inside its window
    percent = now.discount_percent
    rating = float(product.rating or 0)
    paid = now.unit_price
    full = max(0, min(5, int(rating + 0.5)))
    return ProductView(
        id=product.id,
        **face_fields(product, category, paid, discounted=percent > 0),
        category_slug=category.slug if category else "",
        save_text=money_text(product.price - paid) if percent > 0 else "",
        discount_percent=percent,
        rating=rating,
        rating_text=f"{rating:.1f}",
        full_stars=full,
        stars_on=STAR * full,
        stars_off=STAR * (5 - full),
        stock=product.stock,
        stock_text=f"{product.stock} in stock" if product.stock > 0 else "Out of stock",
        status=product.status,
        href=routes.product_path(product.id),
        review_count=product.review_count or 0,
        review_count_text=review_count_text(product.review_count or 0),
        **_flash_sale_fields(product, now),
    )


def _flash_sale_fields(product: Product, now: PriceNow) -> dict[str, str]:
    """The countdown and the limit, from the price already computed (a listing renders many cards)."""
    if not now.discount_active:
        return {}
    ends_text = flash_sales.countdown_text(now.changes_at)  # the window's end while it is open
    return {
        "ends_text": ends_text,
        "ends_at": now.changes_at.isoformat() if ends_text else "",
        "limit_text": flash_sales.limit_badge_text(product.per_customer_limit),
    }


def product_snapshot(product: Product, category: Category | None) -> dict:
    """The product object kept in browser storage (same keys as the API's product JSON)."""
    return {
        "id": product.id,
        "name": product.name,
        "description": product.description,
        "brand": product.brand,
        "image_url": product.image_url,
        "price": api_amount(product.price),
        "discount_price": None if (now := product_price(product)).discount_price is None
        else api_amount(now.discount_price),
        "stock": product.stock,
        "category": {"id": category.id, "name": category.name, "slug": category.slug} if category else None,
    }


# --- reviews -------------------------------------------------------------------------------------


@dataclasses.dataclass
class ReviewItem:
    """One review as the product page shows it (the reviewer's first name, stars, the day)."""

    id: str = ""
    reviewer: str = ""
    rating: int = 0
    stars_on: str = ""
    stars_off: str = ""
    date_text: str = ""  # "27 Nov 2026": the day in Ghana (GMT)
    text: str = ""  # plain text, rendered as text


def review_count_text(count: int) -> str:
    """"1 review", "12 reviews"; empty for none."""
    if count <= 0:
        return ""
    return "1 review" if count == 1 else f"{count:,} reviews"


def review_summary_text(rating: float, count: int) -> str:
    """The product page's line over its reviews: "4.3 (12 reviews)", or "No reviews yet"."""
    return f"{rating:.1f} ({review_count_text(count)})" if count > 0 else "No reviews yet"


def stars_text(rating: float) -> tuple[str, str]:
    """(whole stars, the rest) for a rating, as the cards draw them."""
    full = max(0, min(5, int(float(rating) + 0.5)))
    return STAR * full, STAR * (5 - full)


def review_item(review) -> ReviewItem:
    """A ``services.reviews.ReviewView`` as the page shows it."""
    on, off = stars_text(review.rating)
    return ReviewItem(
        id=review.id, reviewer=review.reviewer, rating=review.rating, stars_on=on, stars_off=off,
        date_text=review.created_at.strftime("%d %b %Y").lstrip("0"), text=review.text,
    )
