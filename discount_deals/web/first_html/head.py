"""Head tags of a page's first HTML: description, canonical link, Open Graph, Twitter card and,
for a product, schema.org ``Product`` + ``Offer`` JSON-LD. Link previews (WhatsApp, Facebook,
X) and search engines read these without running any script."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape

from ..csp import script_hash

SITE_NAME = "Discount Deals"
DEFAULT_IMAGE = "/og-image.png"  # assets/og-image.png, 1200 x 630
DEFAULT_IMAGE_ALT = "Discount Deals: discounted products from Shoprite, Melcom and more"
DESCRIPTION_LENGTH = 160


@dataclass(frozen=True)
class Head:
    """What a page tells crawlers about itself; every URL absolute."""

    title: str
    description: str
    url: str
    image: str
    image_alt: str = DEFAULT_IMAGE_ALT
    og_type: str = "website"
    json_ld: dict | None = None
    noindex: bool = False
    extra_meta: list[tuple[str, str]] = field(default_factory=list)  # (property, content)


def shorten(text: str, length: int = DESCRIPTION_LENGTH) -> str:
    """``text`` on one line, cut at a word boundary to at most ``length`` characters."""
    text = " ".join((text or "").split())
    if len(text) <= length:
        return text
    cut = text[: length - 1].rsplit(" ", 1)[0].rstrip(" ,.;:-")
    return cut + "…"


def product_json_ld(
    *,
    url: str,
    name: str,
    description: str,
    image: str,
    product_id: str,
    brand: str,
    category: str,
    price: str,
    currency: str,
    in_stock: bool,
    price_valid_until: str = "",
) -> dict:
    """schema.org Product with one Offer (price as a plain decimal string, ISO 4217 currency;
    ``price_valid_until``, a date, when a sale price ends)."""
    data: dict = {
        "@context": "https://schema.org",
        "@type": "Product",
        "@id": url,
        "name": name,
        "description": description,
        "image": [image],
        "sku": product_id,
        "url": url,
        "offers": {
            "@type": "Offer",
            "url": url,
            "price": price,
            "priceCurrency": currency,
            "availability": "https://schema.org/InStock" if in_stock else "https://schema.org/OutOfStock",
            "itemCondition": "https://schema.org/NewCondition",
        },
    }
    if price_valid_until:
        data["offers"]["priceValidUntil"] = price_valid_until
    if brand:
        data["brand"] = {"@type": "Brand", "name": brand}
    if category:
        data["category"] = category
    return data


def aggregate_rating(rating: float, count: int) -> dict:
    """schema.org AggregateRating of a product's published reviews (only when it has some)."""
    return {"@type": "AggregateRating", "ratingValue": rating, "reviewCount": count}


def _meta(attribute: str, key: str, content: str) -> str:
    return f'<meta {attribute}="{escape(key)}" content="{escape(content, quote=True)}" data-ssr-head=""/>'


def _json_ld_text(data: dict) -> str:
    # "<" escaped so that no text in the data can close the script element.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def script_hashes(head: Head) -> tuple[str, ...]:
    """The hashes of the inline scripts :func:`render` writes for ``head`` (its JSON-LD)."""
    return (script_hash(_json_ld_text(head.json_ld)),) if head.json_ld is not None else ()


def render(head: Head, *, include_description: bool) -> str:
    """The tags to append to the shell's ``<head>`` (the title is replaced separately).

    ``include_description``: the product page's shell has no description of its own; the other
    pages keep the one the app renders (the app would add it again if it differed)."""
    tags = []
    if include_description:
        tags.append(_meta("name", "description", head.description))
    if head.noindex:
        tags.append(_meta("name", "robots", "noindex"))
    else:
        tags.append(f'<link rel="canonical" href="{escape(head.url, quote=True)}" data-ssr-head=""/>')
    tags += [
        _meta("property", "og:site_name", SITE_NAME),
        _meta("property", "og:type", head.og_type),
        _meta("property", "og:title", head.title),
        _meta("property", "og:description", head.description),
        _meta("property", "og:url", head.url),
        _meta("property", "og:image", head.image),
        _meta("property", "og:image:alt", head.image_alt),
        *(_meta("property", key, value) for key, value in head.extra_meta),
        _meta("name", "twitter:card", "summary_large_image"),
        _meta("name", "twitter:title", head.title),
        _meta("name", "twitter:description", head.description),
        _meta("name", "twitter:image", head.image),
    ]
    if head.json_ld is not None:
        tags.append(f'<script type="application/ld+json" data-ssr-head="">{_json_ld_text(head.json_ld)}</script>')
    return "".join(tags)
