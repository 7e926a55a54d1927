"""Admin Returns tab (issue 33): every return, newest first, filtered by status and paged in SQL,
each with the steps its status allows: Approve / Reject (with a note the customer is told) /
Mark received / Refund, and "Refund in cash" beside the retry of a mobile-money refund that failed.

A refund by mobile money asks the payment provider over the network, so ``refund`` is a
background event: the tab's lock is held only to read and change state, never across the call.
Every event is for admins only (:func:`..guards.admin_event`); services.returns checks again,
and its refusals are shown in its words.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import reflex as rx
from sqlmodel import Session

from ...db import write_session
from ...models import RefundMethod, ReturnStatus, User
from ...services import ServiceError, returns
from ...services import orders as order_service
from ...services.returns.common import NOTE_LIMIT
from ..return_views import AdminReturnRow, admin_return_row
from ..actions import busy_call
from ..forms import form_text, text_arg
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList

ALL = "all"
STATUS_FILTERS = [(ALL, "All")] + [(status.value, returns.STATUS_LABELS[status.value]) for status in (
    ReturnStatus.REQUESTED, ReturnStatus.APPROVED, ReturnStatus.RECEIVED, ReturnStatus.REFUNDED, ReturnStatus.REJECTED,
    ReturnStatus.WITHDRAWN)]
STEP_FAILED = "Please try again."
CASH_BUSY = "cash:"  # + the return's id: "Refund in cash" is being recorded (the retry beside it is not busy)


@admin_tab("returns")
class AdminReturnsState(AdminList, rx.State):
    LIST_NAME: ClassVar[str] = "admin return list"
    FILTERS: ClassVar[dict] = {"status_filter": (STATUS_FILTERS, ALL)}
    status_filter: str = ALL
    rows: list[AdminReturnRow] = []
    rejecting: str = ""  # the return whose Reject asks for its note
    note_error: str = ""
    working: str = ""  # the return a step is being taken on

    @rx.var
    def showing_text(self) -> str:
        return f"Showing {len(self.rows)} of {self.total} returns"

    def _query(self, session: Session, admin: User) -> tuple[list, int]:
        """The page's returns, each with its order (how it was paid, and whether for a test)."""
        views, total = returns.admin_returns(session, admin, self._filter_value("status_filter"), offset=self._offset(),
                                             limit=self.PAGE_SIZE)
        return [(view, order_service.get_order(session, admin, view.ret.order_id)) for view in views], total

    def _row(self, item) -> AdminReturnRow:
        view, order = item
        return admin_return_row(view, order)

    def _refill_quietly(self, admin: User) -> None:
        """Show where the returns now stand (after a refusal: another admin may have moved one)."""
        try:
            self._fill(admin)
        except ServiceError:
            pass

    def _step(self, admin: User, return_id: str, take, done: tuple[str, str | None], failure: str,
              on_refusal=None):
        """Take one step on a return (``take(session)``, one transaction), then show the list again;
        a refusal shows where the returns now stand (``on_refusal``: and more)."""
        def run() -> None:
            with write_session() as session:
                take(session)
            self.rejecting = ""
            self._fill(admin)

        return busy_call(self, "working", run, busy=return_id, success=done, failure=(failure, STEP_FAILED),
                         on_refusal=on_refusal or (lambda _exc: self._refill_quietly(admin)))

    @admin_event
    def approve(self, admin: User, return_id: str):
        return self._step(admin, return_id, lambda session: returns.approve(session, admin, return_id),
                          ("Return approved", "The customer is told to send the items back."),
                          "Could not approve the return")

    @admin_event
    def ask_reject(self, admin: User, return_id: str):
        self.rejecting = text_arg(return_id)
        self.note_error = ""

    @admin_event
    def cancel_reject(self, admin: User):
        self.rejecting = ""
        self.note_error = ""

    def _note_refused(self, admin: User, exc: ServiceError) -> None:
        self.note_error = exc.detail if exc.code == returns.NOTE_REQUIRED else ""
        self._refill_quietly(admin)

    @admin_event
    def reject(self, admin: User, form: dict):
        """Reject the return whose note was asked for, with the note typed (the customer is told)."""
        return_id, note = self.rejecting, form_text(form, "note", limit=NOTE_LIMIT + 1)
        if not return_id:
            return None
        self.note_error = ""
        return self._step(admin, return_id, lambda session: returns.reject(session, admin, return_id, note),
                          ("Return rejected", "The customer is told why."), "Could not reject the return",
                          on_refusal=lambda exc: self._note_refused(admin, exc))

    @admin_event
    def receive(self, admin: User, return_id: str):
        return self._step(admin, return_id, lambda session: returns.receive(session, admin, return_id),
                          ("Return received", "Its items are back in stock."), "Could not mark the return received")

    @admin_event(background=True)
    async def refund(self, admin: User, return_id: str):
        """Refund a received return by the way its order was paid (mobile money through the
        provider: the call runs without the tab's lock; a refusal shows the provider's words)."""
        async def run() -> returns.ReturnView:
            view = await asyncio.to_thread(returns.refund_return, admin, return_id)
            async with self:
                self._refill_quietly(admin)
            return view

        def refunded(view: returns.ReturnView) -> tuple[str, str]:
            if view.ret.credit_note_number:
                return "Refund made", f"Credit note {view.ret.credit_note_number} is ready for the customer."
            return "Refund sent", "The payment provider is sending it: the credit note follows when it confirms."

        async for update in busy_call(self, "working", run, busy=return_id, success=refunded,
                                      failure=("Refund not made", STEP_FAILED),
                                      on_refusal=lambda _exc: self._refill_quietly(admin)):
            yield update

    @admin_event
    def refund_in_cash(self, admin: User, return_id: str):
        """Pay back in cash a return whose mobile-money refund failed (the provider is not asked:
        one transaction); its credit note says it was refunded in cash."""
        def run() -> returns.ReturnView:
            view = returns.refund_return(admin, return_id, method=RefundMethod.CASH.value)
            self._fill(admin)
            return view

        return busy_call(self, "working", run, busy=CASH_BUSY + text_arg(return_id),
                         success=lambda view: ("Refunded in cash",
                                               f"Credit note {view.ret.credit_note_number} is ready for the customer."),
                         failure=("Refund not made", STEP_FAILED),
                         on_refusal=lambda _exc: self._refill_quietly(admin))
