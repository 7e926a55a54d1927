"""What causes a message: order events, a password change, a paused login. Each function adds the
message(s) to the caller's session, in the transaction of the event itself."""

from __future__ import annotations

from sqlmodel import Session

from ...models import Channel, Order, OrderEvent, OrderStatus, PaymentMethod, PaymentStatus, ReturnRequest, User
from ..phones import mobile_number
from . import templates
from .outbox import Draft, queue_messages
from .preferences import account_channels, order_channels
from .unsubscribe import link_base, page_url

# Order timeline entries that tell the customer something: (kind, to_value) → message kind.
STATUS_MESSAGES = {
    "ready_for_pickup": "order_ready",
    "shipped": "order_shipped",
    "delivered": "order_delivered",
    "cancelled": "order_cancelled",
}
PAYMENT_MESSAGES = {"paid": "payment_paid", "failed": "payment_failed"}


def links_for(user_id: str, topic: str) -> templates.Links:
    """The links of a message to ``user_id``: the site, and the unsubscribe page of ``topic``."""
    return templates.Links(base=link_base(), unsubscribe=page_url(user_id, topic) if topic else "")


def _customer(session: Session, order: Order) -> User | None:
    """Who hears about ``order``: its customer, unless the account is closed (its placeholder
    address reaches nobody). A suspended customer still hears what happens to their orders (a
    cancellation, a refund); the deal alerts and cart reminders, which sell, skip them."""
    from ..users.fields import is_closed  # services.users tells its owners through this module

    user = session.get(User, order.user_id)
    return user if user is not None and not is_closed(user) else None


def message_kind(order: Order, event: OrderEvent) -> str | None:
    """The message an order event sends, if any."""
    if event.kind == "status":
        if event.from_value is None and event.to_value == OrderStatus.PENDING:
            return "order_placed"
        return STATUS_MESSAGES.get(event.to_value)
    if event.kind == "payment" and order.payment_method == PaymentMethod.MOBILE_MONEY:
        if event.to_value == PaymentStatus.FAILED and order.status == OrderStatus.CANCELLED:
            return None  # the cancellation's own message says it
        return PAYMENT_MESSAGES.get(event.to_value)
    return None


def on_order_event(session: Session, order: Order, event: OrderEvent) -> list[str]:
    """Queue the customer's messages about one timeline event (none for most)."""
    kind = message_kind(order, event)
    user = _customer(session, order) if kind else None
    if kind is None or user is None:
        return []
    from ..orders.money_in import to_give_back
    from ..orders.rules import refund_due_on_cancel

    refund = to_give_back(session, order) if kind == "order_cancelled" and refund_due_on_cancel(order) else None
    drafts = []
    for channel, recipient in order_channels(session, user, order):
        common = {"channel": channel, "recipient": recipient, "kind": kind, "user_id": user.id,
                  "subject_id": order.id, "dedupe_key": f"order-event:{event.id}:{channel}"}
        if channel == Channel.SMS:
            drafts.append(Draft(text=templates.order_sms(kind, order, refund=refund), **common))
        else:
            email = templates.order_email(kind, order, links_for(user.id, "orders"), refund=refund)
            drafts.append(Draft(subject=email.subject, text=email.text, html=email.html, topic="orders", **common))
    return queue_messages(session, drafts)


def return_step(session: Session, order: Order, ret: ReturnRequest, kind: str) -> list[str]:
    """Queue the customer's messages about a step of a return (``templates.RETURN_KINDS``), by
    their order-update preference, once per step and channel: where that order's updates go (its
    own number too)."""
    user = _customer(session, order)
    if user is None:
        return []
    drafts = []
    for channel, recipient in order_channels(session, user, order):
        common = {"channel": channel, "recipient": recipient, "kind": kind, "user_id": user.id,
                  "subject_id": order.id, "dedupe_key": f"return:{ret.id}:{kind}:{channel}"}
        if channel == Channel.SMS:
            drafts.append(Draft(text=templates.return_sms(kind, order, ret), **common))
        else:
            email = templates.return_email(kind, order, ret, links_for(user.id, "orders"))
            drafts.append(Draft(subject=email.subject, text=email.text, html=email.html, topic="orders", **common))
    return queue_messages(session, drafts)


def _account_drafts(session: Session, user: User, kind: str, sms: str, email: templates.Email,
                    dedupe: str | None) -> list[Draft]:
    drafts = []
    for channel, recipient in account_channels(session, user):
        key = f"{dedupe}:{channel}" if dedupe else None
        if channel == Channel.SMS:
            drafts.append(Draft(channel=channel, recipient=recipient, kind=kind, text=sms, user_id=user.id,
                                dedupe_key=key))
        else:
            drafts.append(Draft(channel=channel, recipient=recipient, kind=kind, subject=email.subject,
                                text=email.text, html=email.html, user_id=user.id, topic="account", dedupe_key=key))
    return drafts


def password_changed(session: Session, user: User) -> list[str]:
    """Tell the owner their password was changed (by them, or by a reset)."""
    links = links_for(user.id, "account")
    drafts = _account_drafts(session, user, "password_changed", templates.password_changed_sms(),
                             templates.password_changed_email(links), None)
    return queue_messages(session, drafts)


def account_locked(session: Session, user: User, minutes: int, window_key: str) -> list[str]:
    """Tell the owner once per lock (``window_key`` names it) that logging in is paused."""
    links = links_for(user.id, "account")
    drafts = _account_drafts(session, user, "account_locked", templates.account_locked_sms(minutes),
                             templates.account_locked_email(minutes, links), f"locked:{user.id}:{window_key}")
    return queue_messages(session, drafts)


def contact_changed(session: Session, user: User, old_email: str, old_phone: str | None, what: str,
                    undo_path: str, days: int) -> list[str]:
    """Tell the account's *old* email and phone that ``what`` changed; the email carries the undo
    link (a secret: erased once sent). Sent whatever the preferences say: it is how an owner
    learns that someone else moved their account."""
    links = links_for(user.id, "")
    email = templates.contact_changed_email(what, days, links.to(undo_path), links)
    drafts = [Draft(channel=Channel.EMAIL, recipient=old_email, kind="contact_changed", subject=email.subject,
                    text=email.text, html=email.html, user_id=user.id, secret=True)]
    number = mobile_number(old_phone)
    if number:
        drafts.append(Draft(channel=Channel.SMS, recipient=number, kind="contact_changed", user_id=user.id,
                            text=templates.contact_changed_sms(what, days)))
    return queue_messages(session, drafts)
