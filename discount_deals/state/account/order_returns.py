"""The order page's returns (issue 33): "Return items" on a delivered order whose returns are
open (services.returns.returns_open), its form (each line with what may still go back, a
reason), and the Returns box listing the order's returns with a link to each credit note.

Its own state beside OrderDetailState: the order page loads both. A refusal is shown by its code
(services.returns' codes) at the part of the form it concerns, in the service's words.
"""

from __future__ import annotations

import reflex as rx

from ... import routes
from ...db import session_scope, write_session
from ...models import User
from ...services import NotFound, ServiceError, returns
from ...services import orders as order_service
from ...services.returns.common import returned_quantities
from ..actions import busy_call, load_list
from ..forms import text_arg
from ..guards import user_event
from ..return_views import (
    ITEM_CODES,
    REASON_CODES,
    ReturnCard,
    ReturnFormLine,
    form_lines,
    open_until_text,
    requested_items,
    requested_reason,
    return_card,
    returns_title,
)
from .session import per_user

REQUESTED = ("Return requested", "We will tell you when it is approved and how to send the items back.")
WITHDRAWN = ("Return withdrawn", "Your request is withdrawn: you keep the items.")


@per_user
class OrderReturnsState(rx.State):
    order_id: str = ""
    open_until: str = ""  # "Returns open until 27 Dec 2026" while they are open
    lines: list[ReturnFormLine] = []  # what may still go back
    returns: list[ReturnCard] = []
    box_title: str = "Returns"  # "Refund" on a cancelled order (its money given back: services.returns.cancellations)
    form_open: bool = False
    form_version: int = 0  # bumped to empty the form (components.ui.browser_owned)
    sending: bool = False
    items_error: str = ""
    reason_error: str = ""
    form_error: str = ""
    loading: bool = False
    failed: bool = False

    @rx.var
    def can_return(self) -> bool:
        return self.open_until != "" and len(self.lines) > 0

    def _forget(self) -> None:
        self.order_id = self.open_until = ""
        self.lines = []
        self.returns = []
        self._close()

    def _close(self) -> None:
        self.form_open = False
        self.items_error = self.reason_error = self.form_error = ""

    def _requested_id(self) -> str:
        return routes.order_id_in((self.router.url.path or "").rstrip("/")).rsplit("/", 1)[-1][:64]

    def _fill(self, user: User) -> None:
        """The order's returns and what may still go back (the customer's own order only, as
        on the order page)."""
        with session_scope() as session:
            order = order_service.get_order(session, user, self.order_id)
            if order.user_id != user.id:
                raise NotFound("Order not found.")
            views = returns.order_returns(session, user, order.id)
            offered = form_lines(order_service.order_items(session, order), returned_quantities(session, order.id))
            self.open_until = open_until_text(order)
            self.box_title = returns_title(order)
        self.lines = offered
        self.returns = [return_card(view) for view in views]
        if not self.can_return:
            self._close()

    @user_event
    def load(self, user: User):
        requested = self._requested_id()
        if requested != self.order_id:
            self._forget()
        self.order_id = requested
        self._close()
        return load_list(self, lambda: self._fill(user), f"returns of order {requested}", loading=None)

    @user_event
    def open_form(self, user: User):
        self.form_open = self.can_return
        self.form_version += 1

    @user_event
    def close_form(self, user: User):
        self._close()

    def _refused(self, user: User, exc: ServiceError) -> None:
        """Say what was refused where it belongs (by its code); the order as it now stands."""
        self.items_error = exc.detail if exc.code in ITEM_CODES else ""
        self.reason_error = exc.detail if exc.code in REASON_CODES else ""
        self.form_error = exc.detail if exc.code not in (*ITEM_CODES, *REASON_CODES) else ""
        try:
            self._fill(user)
        except ServiceError:
            pass

    @user_event
    async def withdraw(self, user: User, return_id: str):
        """"Withdraw request": the customer takes their return back while nothing has moved."""
        def run() -> None:
            with write_session() as session:
                returns.withdraw(session, user, text_arg(return_id))
            self._fill(user)

        async for update in busy_call(self, "sending", run, success=WITHDRAWN,
                                      failure=("Return not withdrawn", "Please try again."),
                                      on_refusal=lambda _exc: self._fill(user)):  # as it stands, toasted why
            yield update

    @user_event
    async def send_request(self, user: User, form: dict):
        """"Send return request": the form's quantities and reason, to services.returns."""
        if not self.can_return:
            return
        items, reason = requested_items(form, self.lines), requested_reason(form)
        self.items_error = self.reason_error = self.form_error = ""

        def send() -> None:
            with write_session() as session:
                returns.request_return(session, user, self.order_id, items, reason)
            self._fill(user)
            self._close()
            self.form_version += 1

        async for update in busy_call(self, "sending", send, success=REQUESTED,
                                      failure=("Return not sent", "Please try again."),
                                      on_refusal=lambda exc: self._refused(user, exc)):
            yield update
