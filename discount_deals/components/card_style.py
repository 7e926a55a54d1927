"""Class names and icons shared by the product card component and its server-rendered HTML.

The first HTML of /, /products and a product page carries product cards rendered on the server
(``discount_deals.web.first_html``); the app then replaces them with its own components. Both read
their classes from here, so the two cannot drift apart and Tailwind (which scans the compiled
components) emits every class the server's markup uses. No Reflex import: the server side uses it.
"""

from __future__ import annotations

GRID = "grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4"
CARD = "card-enter flex h-full flex-col overflow-hidden rounded-lg border border-gray-200 bg-white shadow-sm"
IMAGE_BOX = "relative aspect-[4/3] overflow-hidden bg-gray-100 sm:aspect-square"
IMAGE_LINK = "block h-full w-full"
IMAGE = "h-full w-full object-cover"
DISCOUNT_BADGE = "absolute left-2 top-2 rounded-md bg-red-700 px-2 py-1 text-xs font-bold text-white"
FAVOURITE = (
    "absolute right-2 top-2 flex h-9 w-9 items-center justify-center rounded-full bg-white/90 shadow hover:bg-white"
)
FAVOURITE_ICON_ON = "fill-red-600 text-red-600"
FAVOURITE_ICON_OFF = "text-gray-700"
BODY = "flex flex-1 flex-col gap-2 p-4"
META_ROW = "flex items-center justify-between gap-2"
BRAND = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold bg-orange-100 text-orange-900 capitalize"
CATEGORY = "truncate text-xs text-gray-600"
NAME = "line-clamp-2 text-base font-semibold leading-snug text-gray-900"
NAME_LINK = "tap-inset hover:text-orange-800 hover:underline focus-visible:underline"
DESCRIPTION = "line-clamp-2 text-sm text-gray-600"
STARS_ROW = "flex items-center gap-1"
STARS = "text-base leading-none tracking-tight"
STAR_ON = "text-amber-500"
STAR_OFF = "text-gray-300"
RATING = "text-xs font-medium text-gray-700"
PRICE_ROW = "flex flex-wrap items-baseline gap-x-2"
PRICE = "text-xl font-bold text-gray-900"
OLD_PRICE = "text-sm text-gray-600"
SAVE = "text-sm font-semibold text-green-800"
STOCK_BASE = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold w-fit"
STOCK_IN = "bg-green-700 text-white"
STOCK_OUT = "bg-red-700 text-white"
# A flash sale (issue 34): "Ends in 5h 12m" from a day before the sale ends, "Limit 2 per customer".
COUNTDOWN = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold w-fit bg-amber-100 text-amber-900"
FLASH_ROW = "flex flex-wrap items-center gap-2"
LIMIT = "text-sm font-medium text-gray-700"
ADD_BUTTON = (
    "inline-flex items-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed "
    "cursor-pointer select-none bg-orange-700 text-white hover:bg-orange-800 disabled:bg-gray-400 "
    "h-10 px-4 text-sm mt-auto w-full justify-center"
)
SR_ONLY = "sr-only"

# Skeletons: grey blocks of a card's size, and of one text line.
SKELETON_CARD = "animate-pulse overflow-hidden rounded-lg border border-gray-200 bg-white"
SKELETON_IMAGE = "aspect-[4/3] bg-gray-200 sm:aspect-square"
SKELETON_BODY = "flex flex-col gap-3 p-4"
SKELETON_BARS = ("h-4 w-1/3", "h-5 w-4/5", "h-10 w-full", "h-6 w-1/2", "mt-4 h-10 w-full")
SKELETON_BAR = "rounded bg-gray-200"
SKELETON_LINE = "inline-block h-4 w-48 animate-pulse rounded bg-gray-200 align-middle"

# Lucide icons (ISC licence) as the app renders them, for the server's markup.
ICON_NODES: dict[str, str] = {
    "heart": '<path d="M2 9.5a5.5 5.5 0 0 1 9.591-3.676.56.56 0 0 0 .818 0A5.49 5.49 0 0 1 22 9.5c0 2.29-1.5 4-3 '
    '5.5l-5.492 5.313a2 2 0 0 1-3 .019L5 15c-1.5-1.5-3-3.2-3-5.5"></path>',
    "shopping-cart": '<circle cx="8" cy="21" r="1"></circle><circle cx="19" cy="21" r="1"></circle><path d="M2.05 '
    '2.05h2l2.66 12.42a2 2 0 0 0 2 1.58h9.78a2 2 0 0 0 1.95-1.57l1.65-7.43H5.12"></path>',
    "minus": '<path d="M5 12h14"></path>',
    "plus": '<path d="M5 12h14"></path><path d="M12 5v14"></path>',
    "message-circle": '<path d="M2.992 16.342a2 2 0 0 1 .094 1.167l-1.065 3.29a1 1 0 0 0 1.236 1.168l3.413-.998a2 2 '
    '0 0 1 1.099.092 10 10 0 1 0-4.777-4.719"></path>',
    "link": '<path d="M10 13a5 5 0 0 0 7.54.54l3-3a5 5 0 0 0-7.07-7.07l-1.72 1.71"></path><path d="M14 11a5 5 0 0 '
    '0-7.54-.54l-3 3a5 5 0 0 0 7.07 7.07l1.71-1.71"></path>',
}


def icon_svg(name: str, size: int, class_name: str = "") -> str:
    """A Lucide icon as lucide-react renders it (decorative: hidden from screen readers)."""
    classes = f"lucide lucide-{name}" + (f" {class_name}" if class_name else "")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 24 24" fill="none" '
        f'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="{classes}" '
        f'aria-hidden="true">{ICON_NODES[name]}</svg>'
    )


# --- the product page ------------------------------------------------------------------------

DETAIL = "grid gap-6 lg:grid-cols-2 lg:gap-10"
DETAIL_IMAGE_BOX = "relative aspect-[4/3] overflow-hidden rounded-xl bg-gray-100 lg:aspect-square"
DETAIL_INFO = "flex flex-col gap-3"
BREADCRUMB = "flex flex-wrap items-center gap-1 text-sm text-gray-600"
BREADCRUMB_LINK = "tap-line hover:text-orange-800 hover:underline"
DETAIL_META = "flex flex-wrap items-center gap-2"
DETAIL_CATEGORY = "text-sm font-medium text-orange-800 hover:underline"
DETAIL_NAME = "text-2xl font-bold leading-tight text-gray-900 sm:text-3xl"
DETAIL_PRICE = "text-3xl font-extrabold text-gray-900"
DETAIL_PERCENT = "rounded-md bg-red-700 px-2 py-1 text-sm font-bold text-white"
BUY_ROW = "flex flex-wrap items-center gap-3"
STEPPER = "flex h-11 items-center rounded-md border border-gray-300 bg-white"
STEPPER_BUTTON = (
    "flex h-11 w-11 items-center justify-center text-gray-800 hover:bg-gray-100 disabled:cursor-not-allowed "
    "disabled:text-gray-400"
)
STEPPER_VALUE = "w-10 text-center font-semibold text-gray-900"
BUY_BUTTON = (
    "inline-flex items-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed "
    "cursor-pointer select-none bg-orange-700 text-white hover:bg-orange-800 disabled:bg-gray-400 "
    "h-11 px-6 text-base flex-1 justify-center sm:flex-none"
)
DETAIL_FAVOURITE = (
    "flex h-11 w-11 items-center justify-center rounded-md border border-gray-300 bg-white hover:bg-gray-100"
)
SHARE_ROW = "flex flex-wrap items-center gap-2"
SHARE_LINK = (
    "inline-flex h-10 items-center gap-2 rounded-md border border-gray-300 bg-white px-3 text-sm font-medium "
    "text-gray-900 hover:bg-gray-100 pointer-coarse:h-11"
)
DETAIL_DESCRIPTION = "whitespace-pre-line text-gray-700"
TAGS = "flex flex-wrap gap-2"
TAG = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold border border-gray-300 text-gray-800"
SECTION_TITLE = "mb-4 text-2xl font-bold text-gray-900"
RELATED = "mt-12"
# The product page's reviews (issue 34): a summary, the newest reviews, a buyer's form.
REVIEW_COUNT_LINK = "text-xs font-medium text-orange-800 underline underline-offset-2"
REVIEWS = "mt-10 max-w-3xl"
REVIEW_SUMMARY = "flex flex-wrap items-center gap-2 text-gray-800"
REVIEW_SUMMARY_TEXT = "text-sm font-semibold"
REVIEW_LIST = "mt-4 flex flex-col gap-3"
REVIEW = "rounded-lg border border-gray-200 bg-white p-4"
REVIEW_HEAD = "flex flex-wrap items-center gap-x-2 gap-y-1"
REVIEW_NAME = "font-semibold text-gray-900"
VERIFIED = "inline-flex items-center rounded-full bg-green-50 px-2 py-0.5 text-xs font-semibold text-green-800"
REVIEW_META = "mt-1 flex items-center gap-2 text-sm text-gray-600"
REVIEW_TEXT = "mt-2 whitespace-pre-line break-words text-gray-800"
DETAIL_STARS_ROW = "flex flex-wrap items-center gap-2"
