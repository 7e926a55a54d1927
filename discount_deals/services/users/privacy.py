"""A customer's own data (issue 32; Ghana's Data Protection Act 2012, Act 843): all of it as one
JSON document, and the account closed with its orders kept anonymised for the books.

Closing keeps the user row (orders belong to it: the books need them) but blanks everything
that names or reaches the person: email, username, names, phone, birthday, and the email that
named them in their orders' timelines and in the audit trail ("Closed account" there); it deletes the
profile and its picture, the addresses, cart, favourites, preferences, resets and alerts, and
every token; the orders keep their lines and amounts, the region and country they went to, and
lose the street, landmark and phone numbers. Messages not yet sent are dropped; sent ones keep
no recipient or text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, delete, select, update

from ...models import (
    Address,
    Cart,
    CartItem,
    DealAlert,
    Favourite,
    MessageStatus,
    NotificationPreference,
    Order,
    OrderEvent,
    OrderItem,
    OutboxMessage,
    PasswordReset,
    Product,
    Profile,
    Review,
    ReturnLine,
    ReturnRequest,
    ReturnStatus,
    Role,
    User,
)
from ...models.orders import OrderStatus
from .. import Conflict, ValidationFailed, audit
from ..auth.tokens import log_out_everywhere
from ..error_codes import ErrorCode
from ..images import delete_after_commit
from ..auth.password_checks import (
    PasswordCheck,
    count_check,
    current_password_matches,
    refusal_keeps_count,
)
from ..messages.preferences import preferences_of
from ..moments import utc_text
from ..money import money_str
from .addresses import address_dict
from .fields import CLOSED_DOMAIN

PASSWORD_WRONG = "Your password is not correct."
ORDERS_OPEN = "Your open orders must be delivered or cancelled before the account is closed."
RETURNS_OPEN = "Your open returns must be refunded or rejected before the account is closed."
ADMIN_CLOSING = "An admin account is closed by another admin in the back office."
# Orders still on their way: closing the account would leave nobody to call about them.
OPEN_STATUSES = (OrderStatus.PENDING.value, OrderStatus.PROCESSING.value, OrderStatus.SHIPPED.value,
                 OrderStatus.READY_FOR_PICKUP.value)
# Returns not yet settled: their steps and refund would go to nobody (and a refund to no number).
OPEN_RETURNS = (ReturnStatus.REQUESTED.value, ReturnStatus.APPROVED.value, ReturnStatus.RECEIVED.value)
FINISHED = (MessageStatus.SENT.value, MessageStatus.DEAD.value)  # kept, without recipient or text
# How the orders' timelines and the audit trail name a closed account (the back office's Users tab too).
CLOSED_LABEL = "Closed account"
# What an order keeps of its address once the customer has gone.
KEPT_ADDRESS_FIELDS = ("state", "country")


def _orders(session: Session, user: User) -> list[dict[str, Any]]:
    orders = session.exec(select(Order).where(Order.user_id == user.id).order_by(col(Order.created_at))).all()
    result = []
    for order in orders:
        items = session.exec(select(OrderItem).where(OrderItem.order_id == order.id)).all()
        result.append({
            "id": order.id, "placed_at": utc_text(order.created_at), "status": order.status,
            "delivery_method": order.delivery_method, "address": order.address, "pickup_store": order.pickup_store,
            "contact_phone": order.contact_phone, "payment_method": order.payment_method,
            "payment_status": order.payment_status, "payment_phone": order.payment_phone,
            "items": [{"product_id": item.product_id, "name": item.name, "quantity": item.quantity,
                       "unit_price": money_str(item.unit_price), "line_total": money_str(item.line_total)}
                      for item in items],
            "subtotal": money_str(order.subtotal), "shipping": money_str(order.shipping),
            "discount": money_str(order.discount), "tax": money_str(order.tax), "total": money_str(order.total),
            "returns": _returns(session, order),
        })
    return result


def _returns(session: Session, order: Order) -> list[dict[str, Any]]:
    rows = session.exec(select(ReturnRequest).where(ReturnRequest.order_id == order.id)
                        .order_by(col(ReturnRequest.created_at))).all()
    return [{"id": ret.id, "requested_at": utc_text(ret.created_at), "status": ret.status, "reason": ret.reason,
             "items": [{"name": line.name, "quantity": line.quantity} for line in session.exec(
                 select(ReturnLine).where(ReturnLine.return_id == ret.id)).all()],
             "refund_amount": money_str(ret.refund_amount), "refund_method": ret.refund_method,
             "credit_note_number": ret.credit_note_number, "refunded_at": utc_text(ret.refunded_at)} for ret in rows]


def _preferences(session: Session, user: User, prefs: NotificationPreference | None) -> dict[str, Any] | None:
    """The stored choices, the order updates in the words the profile and the API use (an order
    email's unsubscribe is kept as "texts only" and shown as the SMS it leaves; no choice yet is
    shown as the default it stands for)."""
    if prefs is None:
        return None
    return {**prefs.model_dump(exclude={"user_id"}, mode="json"),
            "order_updates": preferences_of(session, user).order_updates}


def export_data(session: Session, user: User) -> dict[str, Any]:
    """Everything the shop keeps about ``user``, as one JSON-ready document."""
    user = session.get(User, user.id) or user
    profile = session.exec(select(Profile).where(Profile.user_id == user.id)).first()
    prefs = session.get(NotificationPreference, user.id)
    cart_lines = session.exec(select(CartItem, Product.name).join(Cart).join(Product, isouter=True)
                              .where(Cart.user_id == user.id)).all()
    favourites = session.exec(select(Favourite, Product.name).join(Product, isouter=True)
                              .where(Favourite.user_id == user.id)).all()
    reviews = session.exec(select(Review, Product.name).join(Product, isouter=True)
                           .where(Review.user_id == user.id)).all()
    messages = session.exec(select(OutboxMessage).where(OutboxMessage.user_id == user.id)
                            .order_by(col(OutboxMessage.created_at))).all()
    return {
        "exported_at": utc_text(datetime.now(UTC)),
        "account": {
            "id": user.id, "email": user.email, "username": user.username, "first_name": user.first_name,
            "last_name": user.last_name, "phonenumber": user.phonenumber,
            "date_of_birth": user.date_of_birth.isoformat() if user.date_of_birth else None,
            "gender": user.gender, "role": user.role, "date_joined": utc_text(user.created_at),
        },
        "profile": {"bio": profile.bio, "website": profile.website, "profile_image": profile.profile_image}
        if profile else None,
        "addresses": [address_dict(a) for a in session.exec(select(Address).where(Address.user_id == user.id))],
        "orders": _orders(session, user),
        "cart": [{"product_id": item.product_id, "name": name, "quantity": item.quantity} for item, name in cart_lines],
        "favourites": [{"product_id": fav.product_id, "name": name} for fav, name in favourites],
        "reviews": [{"product_id": r.product_id, "name": name, "rating": r.rating, "text": r.text,
                     "hidden": r.is_hidden, "created_at": utc_text(r.created_at)} for r, name in reviews],
        "notification_preferences": _preferences(session, user, prefs),
        "messages": [{"channel": m.channel, "kind": m.kind, "recipient": m.recipient, "created_at": utc_text(m.created_at),
                      "status": m.status} for m in messages],
    }


def _forget_orders(session: Session, user: User) -> None:
    for order in session.exec(select(Order).where(Order.user_id == user.id)).all():
        address = order.address or {}
        order.address = {key: address[key] for key in KEPT_ADDRESS_FIELDS if address.get(key)} or None
        order.contact_phone = order.payment_phone = None
        order.payment_prompt = ""
        session.add(order)


def count_closing_check(session: Session, user: User, password: object) -> PasswordCheck | None:
    """The first of closing's three steps (see :mod:`..auth.password_checks`): count the
    password's check in ``session``, which the face commits at once (429 past the limit); the
    face checks it (``run_check``) in no transaction, then calls :func:`close_account`."""
    return count_check(session, session.get(User, user.id) or user, password)


def close_account(session: Session, user: User, password: object, checked: PasswordCheck | None = None) -> None:
    """Close ``user``'s own account (see the module docstring). 400 ``password_wrong``; 409
    ``orders_open`` while an order is on its way, ``returns_open`` while a return is open
    (requested, approved or received: not yet refunded or rejected), ``admin_account`` for an
    admin; 429 ``password_checks_throttled`` past the password's limit (:mod:`..auth.password_checks`).
    ``checked``: the face's ``run_check`` of the :func:`count_closing_check` of ``password``,
    made in no transaction (no write lock held through the hash)."""
    user = session.get(User, user.id) or user
    if not current_password_matches(session, user, password, checked):  # counted: no unlimited guesses
        raise refusal_keeps_count(
            ValidationFailed(PASSWORD_WRONG, fields={"password": [PASSWORD_WRONG]}, code=ErrorCode.PASSWORD_WRONG))
    if user.role == Role.ADMIN.value:
        raise Conflict(ADMIN_CLOSING, code=ErrorCode.ADMIN_ACCOUNT)
    if session.exec(select(Order.id).where(Order.user_id == user.id, col(Order.status).in_(OPEN_STATUSES))).first():
        raise Conflict(ORDERS_OPEN, code=ErrorCode.ORDERS_OPEN)
    if session.exec(select(ReturnRequest.id).join(Order, col(Order.id) == col(ReturnRequest.order_id))
                    .where(Order.user_id == user.id, col(ReturnRequest.status).in_(OPEN_RETURNS))).first():
        raise Conflict(RETURNS_OPEN, code=ErrorCode.RETURNS_OPEN)
    profile = session.exec(select(Profile).where(Profile.user_id == user.id)).first()
    if profile is not None:
        delete_after_commit(session, profile.profile_image)
        session.delete(profile)
    cart_ids = select(Cart.id).where(Cart.user_id == user.id)
    session.execute(delete(CartItem).where(col(CartItem.cart_id).in_(cart_ids)))
    for model in (Cart, Address, Favourite, NotificationPreference, PasswordReset, DealAlert):
        session.execute(delete(model).where(model.user_id == user.id))
    mine = OutboxMessage.user_id == user.id
    session.execute(delete(OutboxMessage).where(mine, col(OutboxMessage.status).not_in(FINISHED)))
    session.execute(update(OutboxMessage).where(mine).values(recipient="", body_text="", body_html="", user_id=None))
    _forget_orders(session, user)
    session.execute(update(OrderEvent).where(OrderEvent.actor_id == user.id).values(actor_label=CLOSED_LABEL))
    audit.forget_person(session, user.id, CLOSED_LABEL)
    # Placeholders nobody can take first (which would make this closing fail): no account may
    # have an email in CLOSED_DOMAIN, nor a username with ":" in it.
    user.email, user.username = f"deleted-{user.id}@{CLOSED_DOMAIN}", f"deleted:{user.id}"
    user.first_name = user.last_name = user.phonenumber = user.gender = ""
    user.date_of_birth = None
    user.password_hash = "!"  # no password matches it
    user.is_active = False
    session.add(user)
    log_out_everywhere(session, user)
