"""All tables. Importing this package registers every model on ``SQLModel.metadata``."""

from sqlmodel import SQLModel

from .audit import AuditEvent
from .cart import Cart, CartItem
from .catalog import Category, Product, ProductStatus
from .favourites import Favourite
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
    PaymentMethod,
    PaymentStatus,
    PickupStore,
)
from .users import Address, AuthThrottle, Gender, IdempotentRequest, Profile, RefreshFamily, Role, User

metadata = SQLModel.metadata

__all__ = [
    "Address",
    "AuthThrottle",
    "Attention",
    "AuditEvent",
    "Cart",
    "CartItem",
    "Category",
    "Coupon",
    "CouponKind",
    "DeliveryMethod",
    "Favourite",
    "Gender",
    "IdempotentRequest",
    "Order",
    "OrderEvent",
    "OrderItem",
    "OrderStatus",
    "Payment",
    "PaymentMethod",
    "PaymentStatus",
    "PickupStore",
    "Product",
    "ProductStatus",
    "Profile",
    "RefreshFamily",
    "Role",
    "User",
    "metadata",
]
