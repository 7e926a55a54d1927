"""Every error code the shop answers with, in one enum (issue 33, item 6).

A :class:`~discount_deals.services.ServiceError` carries one of these as ``code``; faces branch on
the code (``exc.code == ErrorCode.STOCK_SHORT``), never on the sentence. ``ErrorCode`` is a
StrEnum, so the API's JSON keeps the same strings (``{"detail": ..., "code": "not_paid"}``).
A new refusal adds its code here: ``tests/unit/test_error_codes.py`` fails on a code written as
a bare string anywhere else.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # accounts, sign-in and passwords
    ACCOUNT_CLOSED = "account_closed"  # an account its owner closed cannot be changed or reopened
    ADMIN_ACCOUNT = "admin_account"  # an admin's account is closed by another admin, not by its owner
    CURRENT_PASSWORD_REQUIRED = "current_password_required"
    LAST_ADMIN = "last_admin"  # the last active admin cannot be demoted or deactivated
    NAME_CHECKS_THROTTLED = "name_checks_throttled"  # too many new emails or usernames tried by one account
    PASSWORD_CHECKS_THROTTLED = "password_checks_throttled"  # too many current passwords tried for one account
    ORDERS_OPEN = "orders_open"  # an account with open orders cannot be closed
    RETURNS_OPEN = "returns_open"  # an account with open returns cannot be closed
    PASSWORD_COMMON = "password_common"
    PASSWORD_WRONG = "password_wrong"
    REGISTER_THROTTLED = "register_throttled"
    RESET_INVALID = "reset_invalid"
    RESET_THROTTLED = "reset_throttled"
    SELF = "self"  # an admin cannot deactivate themselves
    UNDO_EMAIL_TAKEN = "undo_email_taken"
    UNDO_INVALID = "undo_invalid"
    # addresses and phones
    CONTACT_PHONE_INVALID = "contact_phone_invalid"
    CONTACT_PHONE_REQUIRED = "contact_phone_required"
    GPS_INVALID = "gps_invalid"
    NO_ADDRESS = "no_address"
    PHONE_INVALID = "phone_invalid"
    PHONE_REQUIRED = "phone_required"
    REGION_INVALID = "region_invalid"
    UNKNOWN_ADDRESS = "unknown_address"
    # catalogue and back office
    CATEGORY_IN_USE = "category_in_use"
    FILTER_INVALID = "filter_invalid"
    IMAGES_BUSY = "images_busy"
    INVALID_DISCOUNT = "invalid_discount"
    LIMIT_WITHOUT_DISCOUNT = "limit_without_discount"  # a flash sale's limit needs a discount price
    NOT_RETRYABLE = "not_retryable"
    PRODUCT_CHANGED = "product_changed"  # a field an admin changed was changed meanwhile (another admin)
    QUANTITY_INVALID = "quantity_invalid"
    STORE_IN_USE = "store_in_use"
    # checkout and coupons
    CART_EMPTY = "cart_empty"
    CART_FULL = "cart_full"  # a cart holds at most services.cart.MAX_LINES different products
    COUPON_EXISTS = "coupon_exists"
    COUPON_INVALID = "coupon_invalid"
    COUPON_MINIMUM = "coupon_minimum"
    COUPON_USED_UP = "coupon_used_up"
    DELIVERY_METHOD_INVALID = "delivery_method_invalid"
    # a product the admin took off sale (hidden, inactive or deleted) while it waited in a cart:
    # never "not enough stock", which restocking would fix
    NO_LONGER_AVAILABLE = "no_longer_available"
    IDEMPOTENCY_KEY_INVALID = "idempotency_key_invalid"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    PAYMENT_METHOD_INVALID = "payment_method_invalid"
    PER_CUSTOMER_LIMIT = "per_customer_limit"  # more than a flash sale allows one customer
    STOCK_SHORT = "stock_short"
    STOCK_CHANGED = "stock_changed"  # an admin's form opened before orders (or another admin) moved the stock
    STORE_REQUIRED = "store_required"
    TOTAL_CHANGED = "total_changed"
    UNKNOWN_STORE = "unknown_store"
    # orders
    CHANGED = "changed"  # the order changed meanwhile
    NO_REFUND_DUE = "no_refund_due"
    NOTHING_TO_RESOLVE = "nothing_to_resolve"
    NOT_CANCELLABLE = "not_cancellable"
    NOT_PAID = "not_paid"  # no receipt before the money is in
    ORDER_TOO_LARGE = "order_too_large"  # its amounts would not fit the money columns
    NOTHING_TO_PAY = "nothing_to_pay"  # mobile money for an order that comes to 0.00
    STATUS_INVALID = "status_invalid"
    TRANSITION = "transition"  # a status the order cannot move to from its own
    # payments
    BAD_SIGNATURE = "bad_signature"
    CHARGE_IN_PROGRESS = "charge_in_progress"
    NETWORK_INVALID = "network_invalid"
    NO_CODE_EXPECTED = "no_code_expected"
    NOT_PAYABLE = "not_payable"
    OTP_INVALID = "otp_invalid"
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    TOO_MANY_CHARGES = "too_many_charges"
    UNKNOWN_REFERENCE = "unknown_reference"
    WEBHOOK_INVALID = "webhook_invalid"
    WEBHOOK_TOO_LARGE = "webhook_too_large"
    # returns and refunds
    DUPLICATE_LINE = "duplicate_line"
    ITEMS_INVALID = "items_invalid"
    NO_ITEMS = "no_items"
    NOT_DELIVERED = "not_delivered"
    NOT_REFUNDED = "not_refunded"  # no credit note before the refund
    NOTE_REQUIRED = "note_required"
    QUANTITY = "quantity"  # more than was delivered and not yet returned
    REASON_REQUIRED = "reason_required"
    REFUND_FAILED = "refund_failed"
    REFUND_IN_PROGRESS = "refund_in_progress"
    RETURN_STATUS = "return_status"  # the step does not follow from where the return stands
    RETURN_WINDOW_CLOSED = "return_window_closed"
    UNKNOWN_PRODUCT = "unknown_product"
    # reviews
    NOT_A_BUYER = "not_a_buyer"  # only a customer who received the product reviews it
    REVIEW_INVALID = "review_invalid"
    # messages
    PREFERENCES_INVALID = "preferences_invalid"
    TOKEN_INVALID = "token_invalid"
