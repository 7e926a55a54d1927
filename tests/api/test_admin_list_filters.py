"""The back office's list filters, as the tabs' states apply them (state/admin/listing.AdminList):
a choice lists only its rows, the default ("all") lists every row, and a value that is not a
choice falls back to the default."""

from __future__ import annotations

from reflex.state import State

from discount_deals import models
from discount_deals.services.auth.tokens import issue_tokens
from discount_deals.state.account.session import SessionState
from discount_deals.state.admin.coupons import AdminCouponsState
from discount_deals.state.admin.notifications import AdminNotificationsState
from discount_deals.state.admin.orders import AdminOrdersState
from discount_deals.state.admin.returns import AdminReturnsState

from ..support.loops import run_coroutine as run
from ..builders.returns import ask_return, delivered_order, step

COUPONS = "/api/admin/coupons/"


def choices(state_class, admin: models.User, filter_name: str, values: list[str]) -> list[tuple[list[str], str]]:
    """The tab opens; the admin picks each of ``values`` in turn in its ``filter_name`` select,
    as Reflex runs those events. What the list shows after each pick (the rows' ids, sorted) and
    the filter's value then."""

    async def go() -> list[tuple[list[str], str]]:
        root = State(_reflex_internal_init=True)
        session = await root.get_state(SessionState)
        tokens = issue_tokens(admin)
        session.access_token, session.refresh_token = tokens.access, tokens.refresh
        state = await root.get_state(state_class)
        _opened = [event async for event in state_class.event_handlers["load"].fn(state)]
        shown = []
        for value in values:
            handler = state_class.event_handlers["set_filter"].fn
            _events = [event async for event in handler(state, name=filter_name, value=value)]
            shown.append((sorted(row.id for row in state.rows), getattr(state, filter_name)))
        return shown

    return run(go())


def test_the_returns_tab_lists_the_status_chosen_or_every_return(client, customer, admin, make_product,
                                                                 admin_headers):
    milo, rice = make_product(price="12.00", stock=20), make_product(price="30.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2), (rice, 1))
    asked = ask_return(client, customer, order["id"], [(milo.id, 1)])
    approved = ask_return(client, customer, order["id"], [(rice.id, 1)])
    step(client, admin_headers, approved["id"], "approve")
    both = sorted([asked["id"], approved["id"]])

    assert choices(AdminReturnsState, admin, "status_filter", ["approved", "requested", "all", "no-such-status"]) == [
        ([approved["id"]], "approved"), ([asked["id"]], "requested"), (both, "all"), (both, "all")]


def test_the_coupons_tab_lists_the_status_chosen_or_every_coupon(client, admin, admin_headers):
    made = {}
    for code in ("FIVE", "TEN"):
        response = client.post(COUPONS, headers=admin_headers, json={"code": code, "kind": "fixed", "value": "5"})
        assert response.status_code == 201, response.text
        made[code] = response.json()["id"]
    assert client.post(f"{COUPONS}{made['FIVE']}/deactivate/", headers=admin_headers).status_code == 200

    assert choices(AdminCouponsState, admin, "status_filter", ["inactive", "active", "all"]) == [
        ([made["FIVE"]], "inactive"), ([made["TEN"]], "active"), (sorted(made.values()), "all")]


def test_a_filter_at_its_default_asks_the_service_for_every_row():
    async def values() -> dict[str, str]:
        state = await State(_reflex_internal_init=True).get_state(AdminNotificationsState)
        state.status_filter, state.channel_filter = "failed", "sms"
        return {name: state._filter_value(name) for name in AdminNotificationsState.FILTERS}

    assert run(values()) == {"status_filter": "failed", "channel_filter": "sms", "kind_filter": ""}


def test_every_list_starts_at_its_filters_defaults_which_are_choices():
    async def starts(state_class) -> dict[str, str]:
        state = await State(_reflex_internal_init=True).get_state(state_class)
        return {name: getattr(state, name) for name in state_class.FILTERS}

    for state_class in (AdminReturnsState, AdminCouponsState, AdminNotificationsState):
        defaults = {name: default for name, (_choices, default) in state_class.FILTERS.items()}
        assert run(starts(state_class)) == defaults, state_class.__name__
        assert all(default in dict(state_class.FILTERS[name][0]) for name, default in defaults.items())


def test_the_orders_tab_hands_the_service_only_the_filters_chosen():
    async def filters():
        state = await State(_reflex_internal_init=True).get_state(AdminOrdersState)
        state.payment_filter, state.delivery_filter = "paid", "pickup"
        return state._filters()

    chosen = run(filters())
    assert (chosen.status, chosen.payment_status, chosen.delivery_method) == ("", "paid", "pickup")
