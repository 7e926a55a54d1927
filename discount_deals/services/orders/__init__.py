"""Orders: placing them, reading them, and what happens to them afterwards.

- :mod:`.placing`: checkout and explicit orders, each in a transaction of its own (owns its
  transactions: see its docstring)
- :mod:`.placement`: the rules of placing (prices, stock, coupon, flash-sale limits, the
  choice of delivery and payment), on the caller's session
- :mod:`.reading`: a customer's orders and their lines
- :mod:`.status`: status and payment changes, cancellation, the timeline and its messages
- :mod:`.rules`: what may happen to an order now (payable, cancellable, allowed changes,
  revenue, test payments): the one definition every face asks
- :mod:`.expiry`: unpaid mobile-money orders whose time is up
"""

from .placing import checkout, create_order
from .reading import (
    OrderLine, get_order, items_for_orders, latest_order_since, list_orders, order_items, update_status,
)

__all__ = [
    "OrderLine",
    "checkout",
    "create_order",
    "get_order",
    "items_for_orders",
    "latest_order_since",
    "list_orders",
    "order_items",
    "update_status",
]
