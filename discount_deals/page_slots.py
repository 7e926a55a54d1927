"""Names of the places the server fills in a page's first HTML.

The pages mark them (``components.product_card.server_rendered``) and the web shell's renderer
(``web/first_html``) fills them: the names live here, beside both, because nothing that renders
imports the web shell.
"""

SLOT_FEATURED = "featured"  # home and /test-home: the featured grid
SLOT_BRAND_COUNT = "brand-count"  # home: "{n} products" under a brand tile, suffixed with the brand
SLOT_LISTING = "listing"  # /products: the first page of the default listing
SLOT_LISTING_COUNT = "listing-count"  # /products: "Showing N of M products"
SLOT_PRODUCT = "product"  # /products/{id}: the product, or the not-found message

