"""What a tab's server state still holds after its user logs out: nothing of theirs. A reload or
reconnect of the tab (its token lives in sessionStorage) hydrates the whole state tree, so a back
office list or a checkout left in it went to whoever used the tab next (a probe of the states)."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

from reflex.state import State

import discount_deals.state as state_package
from discount_deals.services.auth.tokens import issue_tokens
from discount_deals.state.account.session import SessionState
from discount_deals.state.admin.orders import AdminOrdersState
from discount_deals.state.admin.users import AdminUsersState
from discount_deals.state.shop.checkout import CheckoutState

from ..builders.accounts import auth_headers
from ..builders.checkout import fill_cart, place
from ..builders.shop import add_address
from ..support.loops import run_coroutine as run

for _module in pkgutil.walk_packages(state_package.__path__, state_package.__name__ + "."):
    importlib.import_module(_module.name)  # the whole tree, as the app has it


async def sign_in(root: State, user) -> None:
    pair = issue_tokens(user)
    session = await root.get_state(SessionState)
    session.access_token, session.refresh_token = pair.access, pair.refresh


async def fire(root: State, state_class, name: str, **payload) -> None:
    """One event the way Reflex runs it (``handler.fn(state, **payload)``), to its end."""
    answer = state_class.event_handlers[name].fn(await root.get_state(state_class), **payload)
    if inspect.isawaitable(answer):
        answer = await answer
    if inspect.isasyncgen(answer):
        [_ async for _ in answer]
    elif inspect.isgenerator(answer):
        list(answer)


def held(root: State) -> str:
    """Everything the tab's state holds, as a hydrate would send it."""
    return json.dumps(root.dict(), default=str)


def test_an_admins_lists_and_open_order_go_with_the_logout(client, admin, make_user, make_product):
    shopper = make_user(email="private.shopper@example.com")
    add_address(shopper, is_default=True, line1="14 Quiet Lane")
    fill_cart(client, auth_headers(shopper), (make_product(stock=5), 1))
    order = place(client, auth_headers(shopper), {})

    async def go() -> tuple[str, str]:
        root = State(_reflex_internal_init=True)
        await sign_in(root, admin)
        await fire(root, AdminUsersState, "load")
        await fire(root, AdminOrdersState, "open_order", order_id=order["id"])
        before = held(root)
        await fire(root, SessionState, "logout")
        return before, held(root)

    before, after = run(go())
    assert "private.shopper@example.com" in before and "14 Quiet Lane" in before  # what the admin saw
    assert "private.shopper@example.com" not in after and "14 Quiet Lane" not in after


def test_the_next_account_on_a_tab_gets_its_own_checkout(client, make_user, make_product):
    """Kofi, signed in after Ama on her tab, was offered her mobile-money number: a charge prompt
    would have gone to her phone."""
    ama = make_user(email="ama@example.com", phonenumber="0241112222")
    kofi = make_user(email="kofi@example.com", phonenumber="0559998888")
    for user, line in ((ama, "7 Private Close"), (kofi, "9 Kofi Street")):
        add_address(user, is_default=True, line1=line)
        fill_cart(client, auth_headers(user), (make_product(stock=5), 1))

    async def go() -> tuple[str, str, str]:
        root = State(_reflex_internal_init=True)
        await sign_in(root, ama)
        await fire(root, CheckoutState, "load")
        await fire(root, CheckoutState, "set_phone", value="024 111 2222")
        await fire(root, SessionState, "logout")
        after_logout = held(root)
        await sign_in(root, kofi)
        await fire(root, CheckoutState, "load")
        checkout = await root.get_state(CheckoutState)
        return after_logout, checkout.phone, held(root)

    after_logout, kofis_phone, kofis_tab = run(go())
    assert "7 Private Close" not in after_logout and "024 111 2222" not in after_logout
    assert "111" not in kofis_phone and "9 Kofi Street" in kofis_tab and "7 Private Close" not in kofis_tab
