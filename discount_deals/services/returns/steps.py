"""The back office's steps of a return: list, approve, reject (with a note), receive; and its
customer's one: withdraw it before the items came back.

Each step is a guarded update (``UPDATE order_return SET status = :to WHERE id = :id AND status
= :from``, its row count checked): of two admins (or two tabs) taking the same step at once, one
succeeds and the other gets 409 ``return_status``. Receiving puts the returned quantities back
in stock in that same transaction, so exactly once. Each step is in the audit trail (status
before and after) and messages the customer, in the same transaction.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, select

from ...models import Order, Product, ReturnRequest, ReturnStatus, User
from ...models.base import utcnow
from .. import audit
from ..messages import deals, notices
from ..permissions import require_admin, require_user
from ..plain_text import one_line
from ..rows import owned
from .common import (
    NOTE_LIMIT,
    NOTE_REQUIRED,
    RETURN_NOT_FOUND,
    STEP_FROM,
    ReturnView,
    find_return,
    lines_of,
    refused,
    view_of,
    wrong_status,
)

R = ReturnStatus


def admin_returns(session: Session, actor: User | None, status: str = "", *, offset: int = 0,
                  limit: int = 20) -> tuple[list[ReturnView], int]:
    """Every return, newest first, with whose it is; ``status`` filters (an unknown one finds none)."""
    require_admin(actor)
    base = select(ReturnRequest, User).join(User, User.id == ReturnRequest.user_id)
    counted = select(func.count()).select_from(ReturnRequest)
    if status:
        base = base.where(ReturnRequest.status == status)
        counted = counted.where(ReturnRequest.status == status)
    total = session.exec(counted).one()
    rows = session.exec(base.order_by(ReturnRequest.created_at.desc(), ReturnRequest.id.desc())
                        .offset(offset).limit(limit)).all()
    lines = lines_of(session, [ret.id for ret, _user in rows])
    return [ReturnView(ret, lines[ret.id], customer) for ret, customer in rows], total


def move(session: Session, ret: ReturnRequest, from_statuses: tuple[str, ...], to_status: str, step: str,
         **values: Any) -> str:
    """The guarded change of a return's status (see the module docstring); the status it left."""
    before = ret.status
    if before not in from_statuses:
        raise wrong_status(ret, step)
    changed = session.execute(
        update(ReturnRequest).where(ReturnRequest.id == ret.id, ReturnRequest.status == before)
        .values(status=to_status, updated_at=utcnow(), **values)
    )
    if changed.rowcount != 1:
        session.refresh(ret)
        raise wrong_status(ret, step)
    session.refresh(ret)
    return before


def _finish(session: Session, actor: User, ret: ReturnRequest, action: str, before: str, kind: str,
            **changes: Any) -> ReturnView:
    order = session.get(Order, ret.order_id)
    audit.record(session, actor, action, "return", ret.id, label=f"Return for order #{ret.order_id[:8]}",
                 changes={"status": [before, ret.status], **changes})
    notices.return_step(session, order, ret, kind)
    return view_of(session, ret)


def approve(session: Session, actor: User | None, return_id: str) -> ReturnView:
    """Accept a requested return: the customer sends the items back."""
    actor = require_admin(actor)
    ret = find_return(session, return_id)
    move(session, ret, STEP_FROM["approve"], R.APPROVED.value, "approved")
    return _finish(session, actor, ret, "return.approve", R.REQUESTED.value, "return_approved")


def reject(session: Session, actor: User | None, return_id: str, note: Any) -> ReturnView:
    """Turn a requested return down, or end an approved one whose items never came back, saying
    why (400 ``note_required`` without a reason)."""
    actor = require_admin(actor)
    text = one_line(note)
    if not text or len(text) > NOTE_LIMIT:
        raise refused(f"Say why the return is not approved (at most {NOTE_LIMIT} characters).", NOTE_REQUIRED,
                      "note")
    ret = find_return(session, return_id)
    before = move(session, ret, STEP_FROM["reject"], R.REJECTED.value, "rejected", admin_note=text)
    return _finish(session, actor, ret, "return.reject", before, "return_rejected", admin_note=["", text])


def restock(session: Session, ret: ReturnRequest) -> dict[str, int]:
    """Put the return's quantities back on the shelf ({product id: stock after}); lines whose
    product was deleted since go nowhere."""
    after_by_product: dict[str, int] = {}
    for line in sorted(lines_of(session, [ret.id])[ret.id], key=lambda line: line.product_id or ""):
        if not line.product_id:
            continue
        after = session.execute(update(Product).where(Product.id == line.product_id)
                                .values(stock=Product.stock + line.quantity).returning(Product.stock)).scalar()
        if after is not None:
            after_by_product[line.product_id] = after
            deals.stock_changed(session, line.product_id, after - line.quantity, after)  # back in stock: alerts
    return after_by_product


def receive(session: Session, actor: User | None, return_id: str) -> ReturnView:
    """The returned items arrived: their stock goes back, exactly once (see the module docstring)."""
    actor = require_admin(actor)
    ret = find_return(session, return_id)
    move(session, ret, STEP_FROM["receive"], R.RECEIVED.value, "received", received_at=utcnow())
    stock = restock(session, ret)
    return _finish(session, actor, ret, "return.receive", R.APPROVED.value, "return_received",
                   received_at=[None, ret.received_at], stock=[None, stock])


def withdraw(session: Session, user: User | None, return_id: str) -> ReturnView:
    """The customer takes back their own return request (they kept the items, or asked by
    mistake) while nothing has moved: requested or approved, not yet received. Its items may be
    asked for again. 404 for anyone else's return; 409 ``return_status`` once received."""
    ret = owned(session, ReturnRequest, return_id, require_user(user), RETURN_NOT_FOUND)
    before = move(session, ret, STEP_FROM["withdraw"], R.WITHDRAWN.value, "withdrawn")
    audit.record(session, user, "return.withdraw", "return", ret.id, label=f"Return for order #{ret.order_id[:8]}",
                 changes={"status": [before, ret.status]})
    return view_of(session, ret)
