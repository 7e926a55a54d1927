"""state.guards: the one "admin" and "signed in" check, run against the real states (a real state
tree, the real token services, the test database), and a check that no admin event goes without it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
import reflex as rx
from reflex.state import State

import discount_deals.state as state_package
import discount_deals.state.admin as admin_package

from discount_deals.db import session_scope
from discount_deals.models import User
from discount_deals.services.auth.tokens import issue_tokens
from discount_deals.state.account.orders import OrdersState
from discount_deals.state.account.session import SessionState
from discount_deals.state.admin.users import AdminUsersState
from discount_deals.state.guards import ADMIN, guard_of
from discount_deals.state.shop.cart import CartState
from discount_deals.state.shop.favorites import FavoritesState
from ..support.loops import run_coroutine as run

# Every state module, so the state tree holds them all (as the app does).
for _module in pkgutil.walk_packages(state_package.__path__, state_package.__name__ + "."):
    importlib.import_module(_module.name)

REFLEX_OWN = set(State.event_handlers)  # setvar & co.: Reflex's, not ours


def call(state_class, name: str, signed_in: tuple[str, str] | None = None, **payload):
    """Fire one event the way Reflex does (``handler.fn(state, **payload)``) in a fresh browser
    session holding ``signed_in`` (access, refresh) tokens; returns (events, the state tree)."""

    async def go():
        root = State(_reflex_internal_init=True)
        if signed_in is not None:
            session = await root.get_state(SessionState)
            session.access_token, session.refresh_token = signed_in
        state = await root.get_state(state_class)
        events = [event async for event in state_class.event_handlers[name].fn(state, **payload)]
        return events, root

    return run(go())


def flat(events) -> list:
    return [event for item in events for event in (item if isinstance(item, list) else [item])]


def redirects(events) -> list[str]:
    """Where the events send the browser."""
    return [
        event.args[0][1]._var_value
        for event in flat(events)
        if getattr(getattr(getattr(event, "handler", None), "fn", None), "__qualname__", "") == "_redirect"
    ]


def tokens(user: User) -> tuple[str, str]:
    pair = issue_tokens(user)
    return pair.access, pair.refresh


def role_of(user: User) -> str:
    with session_scope() as session:
        return session.get(User, user.id).role


# --- the admin guard -----------------------------------------------------------------------------


def test_guests_are_sent_to_log_in_and_come_back_to_admin(customer):
    events, _root = call(AdminUsersState, "change_role", user_id=customer.id, role="admin")
    assert redirects(events) == ["/login?redirectTo=/admin"]
    assert role_of(customer) == "customer"


def test_an_expired_session_is_cleared_and_sent_to_log_in(customer, admin):
    events, root = call(AdminUsersState, "change_role", ("expired", "expired"), user_id=customer.id, role="admin")
    assert redirects(events) == ["/login?redirectTo=/admin"]
    assert role_of(customer) == "customer"

    async def after():
        session = await root.get_state(SessionState)
        orders = await root.get_state(OrdersState)
        return session.access_token, session.refresh_token, session.user_id, orders.loading

    assert run(after()) == ("", "", "", True)  # tokens gone, per-user states forgotten


def test_customers_are_sent_home(customer):
    events, _root = call(AdminUsersState, "change_role", tokens(customer), user_id=customer.id, role="admin")
    assert redirects(events) == ["/"]
    assert role_of(customer) == "customer"


def test_an_admin_reaches_the_handler_with_themselves(admin, customer):
    events, _root = call(AdminUsersState, "change_role", tokens(admin), user_id=customer.id, role="manager")
    assert redirects(events) == []
    assert role_of(customer) == "manager"  # the service recorded the admin as the actor
    assert any("User role has been updated to manager" in str(event) for event in events)


def test_an_expired_access_token_is_refreshed_once(admin, customer):
    _access, refresh = tokens(admin)
    events, root = call(AdminUsersState, "change_role", ("stale", refresh), user_id=customer.id, role="seller")
    assert redirects(events) == [] and role_of(customer) == "seller"

    async def rotated():
        session = await root.get_state(SessionState)
        return session.access_token, session.refresh_token

    access, new_refresh = run(rotated())
    assert access not in ("", "stale") and new_refresh not in ("", refresh)


# --- the signed-in guard -------------------------------------------------------------------------


def test_signed_in_events_send_guests_to_log_in_with_a_notice():
    events, _root = call(CartState, "checkout")
    assert redirects(events) == ["/login?redirectTo=/checkout"]
    assert "Please log in to proceed with checkout." in str(events)


def test_signed_in_events_reach_the_handler_for_a_user(customer):
    events, _root = call(CartState, "checkout", tokens(customer))
    assert redirects(events) == ["/checkout"]


def test_guests_allowed_events_run_for_guests_but_not_for_expired_sessions(make_product):
    product = make_product(name="Guard Rice")
    events, root = call(FavoritesState, "toggle", product_id=product.id)
    assert redirects(events) == [] and "Added to favorites" in str(events)

    async def guest_list():
        return (await root.get_state(FavoritesState)).ids

    assert run(guest_list()) == [product.id]

    events, _root = call(FavoritesState, "toggle", ("expired", "expired"), product_id=product.id)
    assert redirects(events) == ["/login?redirectTo=/"]


# --- what Reflex sees ----------------------------------------------------------------------------


def test_the_injected_user_is_not_a_parameter_reflex_sees():
    handler = AdminUsersState.event_handlers["set_active"]
    assert list(inspect.signature(handler.fn).parameters) == ["self", "user_id", "active"]
    assert handler._get_type_hints() == {"user_id": str, "active": bool}  # payloads converted as before
    assert AdminUsersState.event_handlers["go_to_page"]._get_type_hints() == {"page": int}


def _admin_states() -> list[type[rx.State]]:
    found = []
    for module_info in pkgutil.iter_modules(admin_package.__path__, admin_package.__name__ + "."):
        module = importlib.import_module(module_info.name)
        found += [
            value for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, rx.State) and value.__module__ == module.__name__
            and value.get_parent_state() is State  # a real state, not a mixin
        ]
    return found


def test_every_admin_event_is_guarded():
    """A new admin handler without @admin_event fails here: the browser can call any public event."""
    states = _admin_states()
    assert len(states) >= 10  # the gate and every tab
    unguarded = [
        f"{state.__name__}.{name}"
        for state in states
        for name, handler in state.event_handlers.items()
        if name not in REFLEX_OWN and guard_of(handler.fn) != ADMIN
    ]
    assert unguarded == []


@pytest.mark.parametrize("name", ["upload"])
def test_background_admin_events_stay_background(name):
    from discount_deals.state.admin.bulk import BulkCategoriesState, BulkProductsState

    for state in (BulkProductsState, BulkCategoriesState):
        handler = state.event_handlers[name]
        assert handler.is_background and guard_of(handler.fn) == ADMIN
