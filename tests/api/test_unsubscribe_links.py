"""Unsubscribe links (probe 65): a link no one signed is refused as invalid on both faces, a
closed account's old link writes nothing back, and the first preference rows of one customer
may be written at once."""

from __future__ import annotations

import threading
import time

from reflex.state import State

from discount_deals import models
from discount_deals.db import session_scope, write_session
from discount_deals.services.messages import preferences
from discount_deals.services.messages.unsubscribe import make_token
from discount_deals.state.account.unsubscribe import UnsubscribeState

from ..builders.accounts import PASSWORD, auth_headers
from ..support.loops import run_coroutine as run

ONE_CLICK = "/api/notifications/unsubscribe/"
INVALID = "This unsubscribe link is not valid."


def _page(token: str) -> UnsubscribeState:
    """The /unsubscribe page opened on ``token``, its load run as Reflex runs it."""

    async def go():
        root = State(_reflex_internal_init=True)
        address = f"/unsubscribe?token={token}"
        root.router_data = root._update_router_vars(
            {"pathname": "/unsubscribe", "asPath": address, "query": {"token": token}}, root.router_data or {})
        state = await root.get_state(UnsubscribeState)
        await UnsubscribeState.event_handlers["load"].fn(state)
        return state

    return run(go())


def test_a_signature_of_letters_we_never_write_is_an_invalid_link(client, make_user):
    # %C3%A9 arrives as "é": hmac.compare_digest refused the text with a TypeError (500), and the
    # page stayed on "Unsubscribing..." for ever.
    user = make_user()
    answer = client.post(f"{ONE_CLICK}?token={user.id}.orders.%C3%A9%C3%A9")
    assert answer.status_code == 400 and answer.json()["detail"] == INVALID
    assert client.post(f"{ONE_CLICK}?token=%C3%A9.orders.abc").status_code == 400
    page = _page(f"{user.id}.orders.éé")
    assert (page.done, page.message) == (False, INVALID)
    page = _page(make_token(user.id, "orders"))  # the page itself still works
    assert page.done and page.message.startswith("You will no longer get order updates by email.")


def test_a_closed_accounts_old_link_writes_nothing_back(client, make_user):
    user = make_user()
    token = make_token(user.id, "deals")
    assert client.post("/api/users/me/close/", json={"password": PASSWORD}, headers=auth_headers(user)).status_code == 204
    answer = client.post(f"{ONE_CLICK}?token={token}")
    assert answer.status_code == 400 and answer.json()["detail"] == INVALID
    assert _page(token).message == INVALID
    with session_scope() as session:
        assert session.get(models.NotificationPreference, user.id) is None


def test_a_suspended_customers_link_still_works(client, make_user, admin_headers):
    """A suspended customer still hears of their orders, so their emails' links must still stop them."""
    user = make_user()
    assert client.patch(f"/api/users/admin/users/{user.id}/", json={"is_active": False},
                        headers=admin_headers).status_code == 200
    assert client.post(f"{ONE_CLICK}?token={make_token(user.id, 'deals')}").status_code == 200
    with session_scope() as session:
        assert session.get(models.NotificationPreference, user.id).deal_alerts == "off"


def test_a_first_choice_made_while_another_is_being_written_waits_for_it(make_user):
    # PostgreSQL: the profile's card and an email's unsubscribe link, each a customer's first
    # change, both found no row; the second insert's duplicate key answered 409. Here the card's
    # insert is written and not yet committed when the link's transaction starts (SQLite's
    # writers take turns: there the link simply waits for the card).
    user = make_user(phonenumber="")
    card_written, link_started = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def card() -> None:
        with write_session() as session:
            preferences.update_preferences(session, session.get(models.User, user.id), {"cart_reminders": False})
            card_written.set()
            link_started.wait(10)
            time.sleep(0.5)  # the link's insert is waiting on this row's key meanwhile

    def link() -> None:
        card_written.wait(10)
        link_started.set()
        try:
            with write_session() as session:
                preferences.unsubscribe(session, make_token(user.id, "deals"))
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=card), threading.Thread(target=link)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    with session_scope() as session:
        row = session.get(models.NotificationPreference, user.id)
        assert (row.cart_reminders, row.deal_alerts, row.deal_emails) == (False, "off", False)
