"""The storefront: catalogue, product page, cart, favourites, checkout, the header's search, the not-found page."""
