"""HTML the server puts in a page's first HTML: product cards, the product page, counts.

Each function mirrors a component (``components/product_card.py``, ``pages/product.py``,
``pages/not_found.py``) with the same classes from ``components/card_style.py``, so the page looks
the same before and after the app takes over (the browser tests compare the two). Every value
is escaped.
"""

from __future__ import annotations

from html import escape

from ...components import card_style as S
from ...components.ui import button_class
from ...components.whatsapp import CHAT_BOX_CLASS, CHAT_TEXT, LINK_CLASS
from ...display import ProductView, ReviewItem, stars_text


def _e(value: object) -> str:
    return escape(str(value), quote=True)


KEEP_TAP, COUNT_TAPS, DROP_TAP = "", "repeat", None


def _button(inner: str, classes: str, *, label: str = "", disabled: bool = False, extra: str = "",
            tap: str | None = KEEP_TAP) -> str:
    """A button of the server's markup. Buttons do nothing until the app takes over, so they are
    disabled until then (browser tests wait for the live one), looking enabled unless really
    disabled: their ``disabled:`` styles are left out. A tap on one is kept (``data-ssr-tap``):
    the page's boot loader shows it busy and taps the app's button of the same name once it is
    there; ``COUNT_TAPS`` keeps every tap (the quantity's +), ``DROP_TAP`` none (an action that
    needs the tap itself, as copying to the clipboard)."""
    if not disabled:
        classes = " ".join(token for token in classes.split() if not token.startswith("disabled:"))
        extra += f' data-ssr-tap="{tap}"' if tap is not None else ""
    aria = f' aria-label="{_e(label)}"' if label else ""
    return f'<button type="button"{aria}{extra} disabled class="{classes}">{inner}</button>'


def stars(product: ProductView) -> str:
    return (
        f'<div class="{S.STARS_ROW}"><span aria-hidden="true" class="{S.STARS}">'
        f'<span class="{S.STAR_ON}">{product.stars_on}</span><span class="{S.STAR_OFF}">{product.stars_off}</span></span>'
        f'<span class="{S.RATING}" aria-hidden="true">{_e(product.rating_text)}</span>'
        f'<span class="{S.SR_ONLY}">Rated {_e(product.rating_text)} out of 5</span></div>'
    )


def price_block(product: ProductView, price_class: str = S.PRICE, show_saving: bool = True) -> str:
    old = ""
    if product.has_discount:
        old = f'<span class="{S.SR_ONLY}"> was</span><s class="{S.OLD_PRICE}">{_e(product.original_text)}</s>'
        if show_saving:
            old += f'<span class="{S.SAVE}">Save {_e(product.save_text)}</span>'

    return f'<p class="{S.PRICE_ROW}"><span class="{price_class}">{_e(product.price_text)}</span>{old}</p>'


def stock_badge(product: ProductView) -> str:
    colour = S.STOCK_OUT if product.stock <= 0 else S.STOCK_IN
    return f'<span class="{S.STOCK_BASE} {colour}">{_e(product.stock_text)}</span>'


def countdown_badge(product: ProductView) -> str:
    """``components/flash_sale.countdown_badge``."""
    if not product.ends_text:
        return ""
    return f'<span data-ends-at="{_e(product.ends_at)}" class="{S.COUNTDOWN}">{_e(product.ends_text)}</span>'


def flash_sale_notes(product: ProductView) -> str:
    """``components/flash_sale.flash_sale_notes``."""
    if not (product.ends_text or product.limit_text):
        return ""
    limit = f'<span class="{S.LIMIT}">{_e(product.limit_text)}</span>' if product.limit_text else ""
    return f'<div class="{S.FLASH_ROW}">{countdown_badge(product)}{limit}</div>'


def favourite_button(product: ProductView, class_name: str = S.FAVOURITE) -> str:
    heart = S.icon_svg("heart", 18, S.FAVOURITE_ICON_OFF)
    return _button(heart, class_name, label=f"Add {product.name} to favorites", extra=' aria-pressed="false"')


def add_to_cart_label(product: ProductView) -> str:
    return f"Out of Stock: {product.name}" if product.stock <= 0 else f"Add to Cart: {product.name}"


def add_to_cart_button(product: ProductView, classes: str, icon_size: int) -> str:
    out = product.stock <= 0
    label = "Out of Stock" if out else "Add to Cart"
    icon = S.icon_svg("shopping-cart", icon_size)
    return _button(icon + label, classes, label=add_to_cart_label(product), disabled=out)


def product_card(product: ProductView, index: int) -> str:
    badge = (
        f'<span class="{S.DISCOUNT_BADGE}">-{product.discount_percent}%</span>' if product.has_discount else ""
    )
    loading = "eager" if index < 4 else "lazy"
    priority = "high" if index == 0 else "auto"
    return (
        f'<article class="{S.CARD}" style="animation-delay:{index * 100}ms">'
        f'<div class="{S.IMAGE_BOX}">'
        f'<a tabindex="-1" aria-hidden="true" class="{S.IMAGE_LINK}" href="{_e(product.href)}">'
        f'<img src="{_e(product.image_url)}" alt="{_e(product.name)}" width="320" height="320" loading="{loading}" '
        f'fetchpriority="{priority}" decoding="async" class="{S.IMAGE}"></a>'
        f"{badge}{favourite_button(product)}</div>"
        f'<div class="{S.BODY}">'
        f'<div class="{S.META_ROW}"><span class="{S.BRAND}">{_e(product.brand)}</span>'
        f'<span class="{S.CATEGORY}">{_e(product.category)}</span></div>'
        f'<h3 class="{S.NAME}"><a class="{S.NAME_LINK}" href="{_e(product.href)}">{_e(product.name)}</a></h3>'
        f'<p class="{S.DESCRIPTION}">{_e(product.description)}</p>'
        f"{stars(product)}{price_block(product)}{countdown_badge(product)}{stock_badge(product)}"
        f"{add_to_cart_button(product, S.ADD_BUTTON, 16)}</div></article>"
    )


def product_grid(products: list[ProductView]) -> str:
    cards = "".join(product_card(product, index) for index, product in enumerate(products))
    return f'<div class="{S.GRID}">{cards}</div>'


def _quantity_stepper(stock: int) -> str:
    minus = S.icon_svg("minus", 16)
    plus = S.icon_svg("plus", 16)
    return (
        f'<div role="group" aria-label="Quantity" class="{S.STEPPER}">'
        + _button(minus, S.STEPPER_BUTTON, label="Decrease quantity", disabled=True)
        + f'<output aria-live="polite" aria-label="Quantity" class="{S.STEPPER_VALUE}">1</output>'
        + _button(plus, S.STEPPER_BUTTON, label="Increase quantity", disabled=stock <= 1, tap=COUNT_TAPS)
        + "</div>"
    )


def review_count_link(product: ProductView) -> str:
    if not product.review_count:
        return ""
    return f'<a href="#reviews" class="{S.REVIEW_COUNT_LINK}">({_e(product.review_count_text)})</a>'


def review_entry(review: ReviewItem) -> str:
    """One review, as ``components/reviews.review_entry`` renders it; its text stays text."""
    return (
        f'<li class="{S.REVIEW}"><div class="{S.REVIEW_HEAD}"><span class="{S.REVIEW_NAME}">{_e(review.reviewer)}</span>'
        f'<span class="{S.VERIFIED}">Verified purchase</span></div>'
        f'<div class="{S.REVIEW_META}"><span aria-hidden="true" class="{S.STARS}">'
        f'<span class="{S.STAR_ON}">{review.stars_on}</span><span class="{S.STAR_OFF}">{review.stars_off}</span></span>'
        f'<span class="{S.SR_ONLY}">Rated {review.rating} out of 5</span><span>{_e(review.date_text)}</span></div>'
        + (f'<p class="{S.REVIEW_TEXT}">{_e(review.text)}</p>' if review.text else "")
        + "</li>"
    )


def reviews_section(rating: float, summary: str, reviews: list[ReviewItem], has_more: bool) -> str:
    """The product page's reviews for a guest (``components/reviews.reviews_section``): the
    average and count, the newest reviews, and "More reviews" (live once the app takes over)."""
    on, off = stars_text(rating) if reviews else ("", "")
    summary_stars = (
        f'<span aria-hidden="true" class="{S.STARS}"><span class="{S.STAR_ON}">{on}</span>'
        f'<span class="{S.STAR_OFF}">{off}</span></span>'
        if reviews else ""
    )
    items = "".join(review_entry(review) for review in reviews)
    more = _button("More reviews", button_class("outline", "md", "mt-4")) if has_more else ""
    return (
        f'<section id="reviews" aria-label="Reviews" class="{S.REVIEWS}">'
        f'<h2 class="{S.SECTION_TITLE}">Reviews</h2>'
        f'<div class="{S.REVIEW_SUMMARY}">{summary_stars}<span class="{S.REVIEW_SUMMARY_TEXT}">{_e(summary)}</span></div>'
        f'<ul class="{S.REVIEW_LIST}">{items}</ul>{more}</section>'
    )


def whatsapp_chat(href: str) -> str:
    """``components/whatsapp.whatsapp_chat``: "Chat with us on WhatsApp" when the shop has a number."""
    if not href:
        return ""
    return (f'<div class="{CHAT_BOX_CLASS}"><a href="{_e(href)}" id="whatsapp-chat" target="_blank" '
            f'rel="noopener noreferrer" class="{LINK_CLASS}">{S.icon_svg("message-circle", 16, "text-green-700")}'
            f'{CHAT_TEXT}</a></div>')


def product_detail(
    product: ProductView, *, tags: list[str], category_href: str, whatsapp_url: str, related: list[ProductView],
    reviews: str = "", chat_url: str = "",
) -> str:
    """The product page's content, as ``pages/product.py`` renders it for a found product."""
    out = product.stock <= 0
    category = ""
    if product.category:
        category = (
            f'<span aria-hidden="true">/</span><a class="{S.BREADCRUMB_LINK}" href="{_e(category_href)}">'
            f"{_e(product.category)}</a>"
        )
    percent = (
        f'<span class="{S.DETAIL_PERCENT}">-{product.discount_percent}%</span>' if product.has_discount else ""
    )
    saving = (
        f'<p class="{S.SAVE}">You save {_e(product.save_text)} ({product.discount_percent}%)</p>'
        if product.has_discount
        else ""
    )
    stepper = "" if out else _quantity_stepper(product.stock)  # + as the app's: off at the stock (one)
    tag_list = ""
    if tags:
        items = "".join(f'<li class="{S.TAG}">{_e(tag)}</li>' for tag in tags)
        tag_list = f'<ul aria-label="Tags" class="{S.TAGS}">{items}</ul>'
    related_html = ""
    if related:
        related_html = (
            f'<section aria-label="Related products" class="{S.RELATED}">'
            f'<h2 class="{S.SECTION_TITLE}">Related products</h2>{product_grid(related)}</section>'
        )
    return (
        f'<article class="{S.DETAIL}">'
        f'<div class="{S.DETAIL_IMAGE_BOX}"><img src="{_e(product.image_url)}" alt="{_e(product.name)}" '
        f'width="640" height="640" fetchpriority="high" class="{S.IMAGE}"></div>'
        f'<div class="{S.DETAIL_INFO}">'
        f'<nav aria-label="Breadcrumb" class="{S.BREADCRUMB}"><a class="{S.BREADCRUMB_LINK}" href="/">Home</a>'
        f'<span aria-hidden="true">/</span><a class="{S.BREADCRUMB_LINK}" href="/products">Products</a>{category}</nav>'
        f'<div class="{S.DETAIL_META}"><span class="{S.BRAND}">{_e(product.brand)}</span>{percent}</div>'
        f'<h1 class="{S.DETAIL_NAME}">{_e(product.name)}</h1>'
        f'<div class="{S.DETAIL_STARS_ROW}">{stars(product)}{review_count_link(product)}</div>'
        f"{price_block(product, S.DETAIL_PRICE, show_saving=False)}{saving}"
        f"{flash_sale_notes(product)}{stock_badge(product)}"
        f'<div class="{S.BUY_ROW}">{stepper}{add_to_cart_button(product, S.BUY_BUTTON, 18)}'
        f"{favourite_button(product, S.DETAIL_FAVOURITE)}</div>"
        f'<div class="{S.SHARE_ROW}"><span class="text-sm font-medium text-gray-700">Share this deal:</span>'
        f'<a href="{_e(whatsapp_url)}" target="_blank" rel="noopener noreferrer" '
        f'aria-label="Share {_e(product.name)} on WhatsApp" class="{S.SHARE_LINK}">'
        f'{S.icon_svg("message-circle", 16, "text-green-700")}WhatsApp</a>'
        + _button(S.icon_svg("link", 16) + "Copy link", S.SHARE_LINK, tap=DROP_TAP)
        + "</div>"
        + whatsapp_chat(chat_url)
        + f'<h2 class="mt-2 text-lg font-semibold text-gray-900">Description</h2>'
        f'<p class="{S.DETAIL_DESCRIPTION}">{_e(product.description)}</p>{tag_list}'
        f"</div></article>{reviews}{related_html}"
    )


def not_found() -> str:
    """``pages/not_found.not_found_content`` for an unknown or hidden product."""
    return (
        '<div class="py-20 text-center"><p class="text-7xl font-black text-orange-700">404</p>'
        '<h1 class="mt-4 text-2xl font-bold text-gray-900">Oops! Page not found</h1>'
        '<p class="mt-2 text-gray-600">The page you are looking for does not exist or has moved.</p>'
        f'<a href="/" class="{button_class("primary", "md", "mt-6")}">Return to Home</a></div>'
    )


def showing_text(shown: int, count: int, page: int, total_pages: int) -> str:
    """'Showing N of M products' for the default listing (no search), as ProductsState words it."""
    text = f"Showing {shown} of {count} products"
    if total_pages > 1:
        text += f" (Page {page} of {total_pages})"
    return _e(text)


def brand_count(count: int) -> str:
    return f'<span class="block text-sm text-gray-600">{count} products</span>'
