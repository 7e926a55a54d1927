"""Any client may send any event with any arguments, and Reflex hands on a value that does not
match the handler's type hint as it came (a probe fuzzed every handler: form=None, seq=Infinity,
page="abc", a dict for an id). Each such event now does nothing harmful and raises nothing: the
shopper would otherwise see Reflex's error toast, or a busy flag would hold a number."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import MappingProxyType

import pytest
from reflex.state import State

import discount_deals.state as state_package
from discount_deals import models
from discount_deals.services.auth.tokens import issue_tokens
from discount_deals.state.account.auth import LoginState, RegisterState
from discount_deals.state.account.order_detail import OrderDetailState
from discount_deals.state.account.order_returns import OrderReturnsState
from discount_deals.state.account.password_reset import PasswordResetState
from discount_deals.state.account.profile import ProfileState
from discount_deals.state.account.session import SessionState
from discount_deals.state.admin.notifications import AdminNotificationsState
from discount_deals.state.admin.orders import AdminOrdersState
from discount_deals.state.admin.delivery_sheet import DeliverySheetState
from discount_deals.state.admin.products import AdminProductsState
from discount_deals.state.admin.returns import AdminReturnsState
from discount_deals.state.admin.users import AdminUsersState
from discount_deals.state.forms import form_checked, form_text, int_arg, text_arg
from discount_deals.state.shop.cart import CartState
from discount_deals.state.shop.checkout import CheckoutState
from discount_deals.state.shop.deal_offer import DealOfferState
from discount_deals.state.shop.favorites import FavoritesState
from discount_deals.state.shop.catalog import ProductsState
from discount_deals.state.shop.product import ProductPageState

from ..builders.returns import delivered_order
from ..builders.rows import count_rows
from ..support.loops import run_coroutine as run

for _module in pkgutil.walk_packages(state_package.__path__, state_package.__name__ + "."):
    importlib.import_module(_module.name)

INFINITY = float("inf")


def fire(state_class, handler: str, user=None, prepare=None, **payload):
    """One event as Reflex runs it, in a fresh browser session signed in as ``user``; the state."""

    async def go():
        root = State(_reflex_internal_init=True)
        if user is not None:
            tokens = issue_tokens(user)
            session = await root.get_state(SessionState)
            session.access_token, session.refresh_token = tokens.access, tokens.refresh
        state = await root.get_state(state_class)
        if prepare is not None:
            prepare(state)
        answer = state_class.event_handlers[handler].fn(state, **payload)
        if inspect.isawaitable(answer):
            await answer
        elif inspect.isasyncgen(answer):
            [_ async for _ in answer]
        elif inspect.isgenerator(answer):  # a plain event's yields (the listing's filters)
            list(answer)
        return state

    return run(go())


def test_the_readers_take_anything():
    assert (form_text(None, "email"), form_text([1], "email"), form_checked("x", "on")) == ("", "", False)
    # Any mapping is a form: the address's query parameters are read as one (/checkout?coupon=...).
    assert form_text(MappingProxyType({"coupon": " SAVE5 "}), "coupon", strip=True) == "SAVE5"
    assert (text_arg(None), text_arg({"a": 1}), text_arg(5), text_arg("id-1")) == ("", "", "", "id-1")
    assert [int_arg(value) for value in (None, "abc", INFINITY, float("nan"), "\u00b2", "\u0663", [1], True)] == [0] * 8
    assert (int_arg("12"), int_arg(3), int_arg(-1), int_arg("x", 1)) == (12, 3, -1, 1)


@pytest.mark.parametrize("form", [None, "x", 5, [1, 2]])
@pytest.mark.parametrize(("state_class", "name"), [
    (LoginState, "submit"), (RegisterState, "submit"), (PasswordResetState, "ask"), (PasswordResetState, "confirm"),
    (CartState, "apply_coupon"),
])
def test_a_form_that_is_not_an_object_reads_as_empty(state_class, name, form):
    fire(state_class, name, form=form)


@pytest.mark.parametrize("seq", [INFINITY, "abc", None, {"a": 1}])
def test_a_taps_number_that_is_not_one_is_ignored(customer, make_product, seq):
    product = make_product(stock=5)
    for user in (None, customer):
        fire(CartState, "add_quantity", user, product_id=product.id, quantity=INFINITY, seq=seq)
        fire(CartState, "increment", user, key="nope", seq=seq)
        fire(CartState, "remove", user, key="nope", seq=seq)
        fire(FavoritesState, "toggle", user, product_id={"id": product.id}, seq=seq)
    assert count_rows(models.CartItem) == 0


@pytest.mark.parametrize("step", [None, "abc", INFINITY, [1]])
def test_the_product_pages_quantity_ignores_a_step_that_is_not_a_number(step):
    assert fire(ProductPageState, "change_quantity", step=step).quantity == 1


def test_checkout_ignores_a_network_or_a_form_of_the_wrong_kind(customer):
    assert fire(CheckoutState, "set_network", customer, network={"a": 1}).network_picked is False
    fire(CheckoutState, "place_order", customer, form=None)


@pytest.mark.parametrize("value", [{}, [1], 5, True, None])
def test_the_listings_filters_sort_and_page_ignore_values_of_the_wrong_kind(value, caplog):
    """A dict as the sort raised "unhashable type", Infinity as the page OverflowError, and a list
    as a category logged a failed listing (a guest could fill the logs at will)."""
    for name in ("set_category", "set_brand", "set_price_range", "set_sort"):
        listing = fire(ProductsState, name, value=value)._listing
        assert (listing.category, listing.brand, listing.price_range, listing.ordering) == ("", "", "", ""), name
    assert fire(ProductsState, "go_to_page", page=INFINITY if value is None else value)._listing.page == 1
    assert [record.message for record in caplog.records if record.levelname == "ERROR"] == []


@pytest.mark.parametrize("form", [None, "x", 5, [1]])
def test_a_review_form_that_is_not_an_object_is_an_empty_one(customer, form):
    """``form.get`` on a crafted event's list or number raised AttributeError: now the event runs
    to its end (``fire`` raises what the handler raises) and writes nothing."""
    fire(ProductPageState, "post_review", customer, form=form)
    assert count_rows(models.Review) == 0


@pytest.mark.parametrize("page", [None, "", "abc", INFINITY])
def test_the_admin_lists_stay_on_a_real_page(admin, page):
    assert fire(AdminUsersState, "go_to_page", admin, page=page).page == 1


def test_the_admin_filters_and_days_ignore_values_of_the_wrong_kind(admin):
    assert fire(AdminUsersState, "set_filter", admin, name={"a": 1}, value="admin").role_filter == "all"
    assert fire(AdminUsersState, "set_filter", admin, name="role_filter", value=["admin"]).role_filter == "all"
    assert fire(AdminOrdersState, "set_date_from", admin, value=5).date_from == ""
    assert fire(AdminOrdersState, "set_date_to", admin, value={"a": 1}).date_to == ""
    fire(DeliverySheetState, "set_day", admin, value=None)


@pytest.mark.parametrize("given", [None, 7, {"id": "x"}])
def test_busy_and_open_flags_hold_text_whatever_the_id(admin, customer, given):
    states = [fire(ProfileState, "set_default", customer, address_id=given),
              fire(AdminNotificationsState, "toggle", admin, message_id=given),
              fire(AdminReturnsState, "ask_reject", admin, return_id=given),
              fire(AdminOrdersState, "ask_confirm", admin, status=given)]
    flags = [states[0].address_busy, states[1].opened, states[2].rejecting, states[3].confirming]
    assert all(isinstance(flag, str) for flag in flags), flags
    fire(AdminProductsState, "edit", admin, product_id=given)
    fire(DealOfferState, "choose", customer, choice=given)


def test_a_return_quantity_in_other_digits_sends_nothing(client, customer, make_product, admin_headers):
    milo = make_product(price="12.00", stock=20)
    order = delivered_order(client, customer, admin_headers, (milo, 2))

    def opened(state):
        state.order_id = order["id"]
        state._fill(customer)
        state.form_open = True
        opened.field = state.lines[0].field

    fire(OrderReturnsState, "open_form", customer, prepare=opened)
    fire(OrderReturnsState, "send_request", customer, prepare=opened, form={opened.field: "\u00b2", "reason": "Dented"})
    assert count_rows(models.ReturnRequest) == 0



def test_an_order_page_forgets_what_the_last_order_allowed():
    # Opening an order the shopper cannot read kept the previous order's Cancel and Pay buttons.
    def allowed_then_forgotten(state):
        state.can_cancel = state.can_pay = True
        state._forget()

    state = fire(OrderDetailState, "keep_order", prepare=allowed_then_forgotten)
    assert (state.can_cancel, state.can_pay) == (False, False)


def test_the_orders_tab_refuses_a_date_range_that_ends_before_it_starts(admin):
    """The tab listed nothing for it, which reads as "no orders"; the API and the export refuse it."""

    def from_the_first(state):
        state.date_from = "2026-11-20"

    refused = fire(AdminOrdersState, "set_date_to", admin, prepare=from_the_first, value="2026-11-19")
    assert (refused.date_from, refused.date_to, refused.filters_version) == ("2026-11-20", "", 1)
    taken = fire(AdminOrdersState, "set_date_to", admin, prepare=from_the_first, value="2026-11-20")
    assert (taken.date_to, taken.filters_version) == ("2026-11-20", 0)

    def to_the_tenth(state):
        state.date_to = "2026-11-10"

    assert fire(AdminOrdersState, "set_date_from", admin, prepare=to_the_tenth, value="2026-11-11").date_from == ""
    assert fire(AdminOrdersState, "set_date_from", admin, prepare=to_the_tenth, value="2026-11-09").date_from \
        == "2026-11-09"
