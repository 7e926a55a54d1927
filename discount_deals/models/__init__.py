"""All tables. Importing this package registers every model on ``SQLModel.metadata``."""

from sqlmodel import SQLModel

from .audit import AuditEvent
from .cart import Cart, CartItem
from .catalog import Category, Product, ProductStatus
from .favourites import Favourite
from .messages import (
    Channel,
    DealAlert,
    DealEvent,
    MessageStatus,
    NotificationPreference,
    OutboxMessage,
)
from .orders import (
    Attention,
    Coupon,
    CouponKind,
    DeliveryMethod,
    Order,
    OrderEvent,
    OrderItem,
    OrderStatus,
    Payment,
    PaymentAttemptStatus,
    PaymentMethod,
    PaymentStatus,
    PickupStore,
    ReceiptCounter,
)
from .reviews import Review
from .returns import RefundMethod, RefundState, ReturnLine, ReturnRequest, ReturnStatus
from .users import Address, AuthThrottle, Gender, IdempotentRequest, PasswordReset, Profile, RefreshFamily, Role, User

metadata = SQLModel.metadata

__all__ = [
    "Address",
    "AuthThrottle",
    "Attention",
    "AuditEvent",
    "Cart",
    "Channel",
    "CartItem",
    "Category",
    "Coupon",
    "CouponKind",
    "DealAlert",
    "DealEvent",
    "DeliveryMethod",
    "Favourite",
    "Gender",
    "IdempotentRequest",
    "MessageStatus",
    "NotificationPreference",
    "Order",
    "OrderEvent",
    "OrderItem",
    "OrderStatus",
    "OutboxMessage",
    "PasswordReset",
    "Payment",
    "PaymentAttemptStatus",
    "PaymentMethod",
    "PaymentStatus",
    "PickupStore",
    "Product",
    "ProductStatus",
    "Profile",
    "Review",
    "ReceiptCounter",
    "RefreshFamily",
    "RefundMethod",
    "RefundState",
    "ReturnLine",
    "ReturnRequest",
    "ReturnStatus",
    "Role",
    "User",
    "metadata",
]
