"""All tables. Importing this package registers every model on ``SQLModel.metadata``."""

from sqlmodel import SQLModel

from .cart import Cart, CartItem
from .catalog import Category, Product, ProductStatus
from .favourites import Favourite
from .orders import Coupon, CouponKind, Order, OrderItem, OrderStatus
from .users import Address, Gender, LoginAttempt, Profile, RevokedToken, Role, User

metadata = SQLModel.metadata

__all__ = [
    "Address",
    "Cart",
    "CartItem",
    "Category",
    "Coupon",
    "CouponKind",
    "Favourite",
    "Gender",
    "LoginAttempt",
    "Order",
    "OrderItem",
    "OrderStatus",
    "Product",
    "ProductStatus",
    "Profile",
    "RevokedToken",
    "Role",
    "User",
    "metadata",
]
