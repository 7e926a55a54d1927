"""Checkout from the cart: place the order through the orders service, then the payment steps.

One attempt carries one idempotency key, so a double click (or a retry after a lost reply)
places a single order.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

import reflex as rx

from .. import routes
from ..services import ServiceError
from ..services import orders as order_service
from .cart import CartState
from .orders import OrdersState
from .session import SessionExpired, SessionState

log = logging.getLogger("discount_deals.checkout")

ADDRESS_REQUIRED = "You cannot proceed to checkout without an address. Please set your address in your profile."
CHECKOUT_FAILED = "An error occurred during checkout. Please try again."
PAYMENT_WAIT_S = 1.2
NAVIGATE_WAIT_S = 1.0


class CheckoutState(rx.State):
    # "" (idle), "placing", "redirecting" (payment), "paid"
    stage: str = ""
    _attempt_key: str = ""

    @rx.var
    def busy(self) -> bool:
        return self.stage != ""

    @rx.event
    def reset_stage(self):
        """The cart page starts idle (a finished checkout leaves "paid" behind)."""
        self.stage = ""
        self._attempt_key = ""

    @rx.event(background=True)
    async def place_order(self):
        """A background event: the state lock is held only to read and change the state, never
        while the order is placed or during the payment steps' waits (other events of this tab,
        and on Redis other workers, are not kept waiting)."""
        async with self:
            if self.stage:
                return  # an order is already being placed from this tab
            session_state = await self.get_state(SessionState)
            try:
                user = await session_state._require_user()
            except SessionExpired:
                yield rx.toast.error("Login Required", description="Please log in to proceed with checkout.")
                yield session_state._login_redirect(routes.CART)
                return
            cart = await self.get_state(CartState)
            coupon = cart.coupon.strip() or None
            self.stage = "placing"
            self._attempt_key = self._attempt_key or uuid.uuid4().hex
            attempt_key = self._attempt_key
        try:
            order = await asyncio.to_thread(
                order_service.checkout, user, coupon_code=coupon, idempotency_key=attempt_key
            )
        except ServiceError as exc:
            async with self:
                self.stage = ""
                self._attempt_key = ""
                (await self.get_state(CartState))._reload(user)
            if "No address found" in exc.detail:
                yield rx.toast.error("Address Required", description=ADDRESS_REQUIRED)
            else:
                yield rx.toast.error("Checkout Error", description=exc.detail)
            return
        except Exception:
            log.exception("checkout failed")
            async with self:
                self.stage = ""
                self._attempt_key = ""
            yield rx.toast.error("Checkout Failed", description=CHECKOUT_FAILED)
            return
        async with self:
            # SPEC §4: the order is recorded locally (the orders list) before the payment steps.
            (await self.get_state(OrdersState))._record(user.id, order)
            self.stage = "redirecting"
        yield rx.toast.info("Redirecting to payment...")
        await asyncio.sleep(PAYMENT_WAIT_S)
        async with self:
            self.stage = "paid"
            cart = await self.get_state(CartState)
            cart.coupon = ""
            cart._reload(user)  # the service emptied the server cart with the order
        yield rx.toast.success("Payment successful", description="Your order has been placed.")
        await asyncio.sleep(NAVIGATE_WAIT_S)
        async with self:
            self._attempt_key = ""
        yield rx.redirect(f"{routes.ORDERS}/{order.id}")
