"""Response models of the endpoints that build their JSON by hand (cart, orders, categories,
favourites, checkout, bulk uploads): they document exactly what those endpoints send. The
conformance suite (tests/api/test_openapi_conformance.py) checks every answer against them,
so a field added to an answer without its model fails the build instead of the document
drifting."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from .pagination import Page
from .schemas import ProductOut

Money = str  # a 2-decimal string such as "12.50"


class CategoryOut(BaseModel):
    id: str
    name: str
    slug: str
    description: str
    parent: str | None = Field(description="The parent category's id")


class CategoryPage(Page[CategoryOut]):
    pass


class CartLineOut(BaseModel):
    id: str
    cart: str = Field(description="The cart's id")
    product: ProductOut
    quantity: int
    price: Money = Field(description="Unit price: the discount price if any, else the price")


class CartPage(Page[CartLineOut]):
    pass


class FavouriteOut(BaseModel):
    id: str
    product: ProductOut
    added_at: datetime


class FavouritePage(Page[FavouriteOut]):
    pass


class OrderProductRef(BaseModel):
    id: str
    name: str
    image_url: str
    price: Money
    discount_price: Money | None


class OrderLineOut(BaseModel):
    id: str
    product: OrderProductRef | None = Field(description="null once the product was deleted")
    name: str
    quantity: int
    price: Money
    total: Money


class OrderEventOut(BaseModel):
    kind: str
    from_: str | None = Field(alias="from")
    to: str | None
    note: str | None
    created_at: datetime
    by: str | None = Field(None, description="Admins only: who made the change")
    by_user: str | None = Field(None, description="Admins only")


class TaxLineOut(BaseModel):
    """One tax an order was charged; an order's lines sum to its ``tax`` exactly."""

    code: str = Field(description="tax (DD_TAX=spec), or vat, nhil, getfund (DD_TAX=ghana)")
    label: str = Field(description="Its name on receipts: Tax, VAT, NHIL, GETFund levy")
    rate: str = Field(description="Percent of the taxable value (the subtotal less the coupon; shipping is not "
                      "taxed), 2 decimals: \"15.00\"")
    amount: Money
    included: bool = Field(description="The amount is inside the prices (DD_PRICES_INCLUDE_TAX) rather than added "
                           "to the total")


class CustomerRef(BaseModel):
    id: str
    email: str
    name: str


class OrderOut(BaseModel):
    id: str
    user: str
    status: str
    items: list[OrderLineOut]
    item_count: int
    subtotal: Money
    discount: Money
    shipping: Money
    tax: Money
    tax_lines: list[TaxLineOut] = Field(
        description="The taxes that make up tax, as the order was placed with them (never recomputed)"
    )
    total: Money
    amount: Money = Field(description="The same as total (the existing client reads either)")
    savings: Money
    coupon: str | None
    address: dict[str, Any] | None
    delivery_method: str
    delivery_fee: Money
    pickup_store: dict[str, Any] | None
    payment_method: str
    payment_status: str
    payment_reference: str | None
    payment_network: str | None = Field(description="The mobile-money network charged: mtn, telecel or airteltigo")
    payment_phone: str | None = Field(description="The number charged, as shown: 024 123 4567")
    phone: str | None = Field(description="The number charged, E.164: +233241234567")
    payment_step: str | None = Field(
        description="What the current charge waits for: send_otp (type the code: POST pay/otp/), pay_offline "
        "(approve the prompt on the phone), pending (the network); null once decided"
    )
    payment_prompt: str = Field(description="The provider's words to the shopper, or why the payment failed")
    payment_test: bool = Field(description="Mobile money through the fake provider: no money moved")
    contact_phone: str | None = Field(description="The number the rider calls, E.164 (+233...)")
    currency: str = Field(description="ISO 4217 code of every amount")
    payment_url: str | None = Field(description="The test phone's page (fake provider) while a payment is awaited")
    payment_due_at: datetime | None
    can_cancel: bool
    delivered_at: datetime | None = Field(description="When it was delivered or collected")
    returns_open_until: datetime | None = Field(
        description="Items may be returned (POST returns/) until then: DD_RETURN_DAYS after delivery; null when not"
    )
    refunded_total: Money = Field(description="What refunds of its returns gave back (a cancelled order's "
                                  "payment refunded: its total)")
    receipt_number: str | None = Field(description="Its receipt's number once the money is in (GET receipt/)")
    created_at: datetime
    updated_at: datetime
    history: list[OrderEventOut] | None = Field(None, description="One order's answers only: its timeline")
    attention: str | None = Field(None, description="Admins only")
    attention_note: str | None = Field(None, description="Admins only")
    next_statuses: list[str] | None = Field(None, description="Admins only")
    customer: CustomerRef | None = Field(None, description="The admin order list only")


class OrderPage(Page[OrderOut]):
    pass


class BulkRowError(BaseModel):
    index: int = Field(description="0-based position of the row in the upload")
    errors: dict[str, list[str]]


class BulkResultOut(BaseModel):
    created: list[dict[str, Any]] = Field(description="What was created: products as {id, name}, whole categories")
    errors: list[BulkRowError]
    detail: str | None = Field(None, description="Present when nothing was created (400)")
    message: str | None = Field(None, description="The same as detail (the existing client reads it)")


class StoreOut(BaseModel):
    id: str
    name: str
    retailer: str
    address: str
    city: str
    phone: str
    opening_hours: str
    is_active: bool | None = Field(None, description="Admins only")


class StorePage(BaseModel):
    count: int
    next: str | None
    previous: str | None
    results: list[StoreOut]


class DeliveryMethodOut(BaseModel):
    code: str
    name: str
    fee: Money
    free_over: Money | None = None


class NetworkOut(BaseModel):
    code: str
    name: str


class PaymentMethodOut(BaseModel):
    code: str
    name: str
    networks: list[NetworkOut] | None = None


class CurrencyOut(BaseModel):
    code: str = Field(description="ISO 4217")
    symbol: str = Field(description="What prices are shown with: $, GH₵")


class CheckoutOptionsOut(BaseModel):
    currency: CurrencyOut
    delivery_methods: list[DeliveryMethodOut]
    payment_methods: list[PaymentMethodOut]
    pickup_stores: list[StoreOut]


class WebhookOut(BaseModel):
    detail: str
    outcome: str = Field(description="A charge's: paid, failed, mismatch, unknown, ...; a refund's: refunded, "
                         "refund_failed, pending; ignored for an event not used or already applied")


class SuggestedProductOut(BaseModel):
    id: str
    name: str
    effective_price: Money = Field(description="What one unit costs now")
    image_url: str


class SuggestedCategoryOut(BaseModel):
    id: str
    name: str
    slug: str = Field(description="What the listing's category parameter takes")


class SuggestionsOut(BaseModel):
    products: list[SuggestedProductOut] = Field(description="At most 8: words in the name first, newest first")
    categories: list[SuggestedCategoryOut] = Field(description="At most 3")


class FacetValueOut(BaseModel):
    value: str = Field(description="What the listing's parameter of the same name takes")
    label: str
    count: int = Field(description="Products this choice leaves, every other filter applied")


class FacetsOut(BaseModel):
    count: int = Field(description="Products matching every filter (the listing's count)")
    category: list[FacetValueOut] = Field(description="Categories that leave products (value: the slug)")
    brand: list[FacetValueOut] = Field(description="Brands that leave products")
    price_range: list[FacetValueOut] = Field(description="0-25, 25-50, 50-100, 100+ (effective price)")
    discount: list[FacetValueOut] = Field(description="10, 30, 50: at least that many percent off now")
    in_stock: int = Field(description="Products with stock, every other filter applied")
    corrected_query: str | None = Field(None, description="As the listing's: present only when the search was corrected")
