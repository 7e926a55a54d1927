"""state.actions.busy_call: the busy flag, the toasts and the refusals every screen relies on."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from discount_deals.services import ServiceError
from discount_deals.state.actions import busy_call, toast
from ..support.loops import run_coroutine



def run(state, *args, **kwargs) -> list[str]:
    """The updates a handler would yield, each as the JavaScript it sends (None for a bare update)."""

    async def collect():
        return [None if update is None else str(update.args[0][1]) async for update in busy_call(state, *args, **kwargs)]

    return run_coroutine(collect())


def test_the_flag_is_set_while_working_and_cleared_after():
    state = SimpleNamespace(saving=False)
    seen = []
    updates = run(state, "saving", lambda: seen.append(state.saving) or "Rice",
                  success=lambda name: ("Saved", f"{name} was saved."))
    assert seen == [True] and state.saving is False
    assert updates[0] is None  # the busy state is sent first
    assert '"success"]("Saved"' in updates[1] and "Rice was saved." in updates[1]


def test_a_second_click_while_busy_does_nothing():
    state = SimpleNamespace(saving=True)
    assert run(state, "saving", lambda: pytest.fail("must not run")) == []
    assert state.saving is True


def test_refusals_show_their_detail_and_reach_on_refusal():
    state = SimpleNamespace(working="")
    refused = []

    def work():
        raise ServiceError("Not enough stock.")

    updates = run(state, "working", work, busy="cancel", failure=("Could not cancel", "Try again."),
                  on_refusal=refused.append)
    assert state.working == "" and [r.detail for r in refused] == ["Not enough stock."]
    assert '"error"]("Could not cancel"' in updates[-1] and "Not enough stock." in updates[-1]


def test_unexpected_errors_are_logged_and_shown_with_the_fixed_sentence(caplog):
    state = SimpleNamespace(saving=False)
    updates = run(state, "saving", lambda: 1 / 0, failure=("Update failed", "Could not update profile."))
    assert "Could not update profile." in updates[-1] and "division" not in updates[-1]
    assert any("failed" in record.message for record in caplog.records)
    assert state.saving is False


def test_passed_exceptions_reach_the_handler_and_async_work_is_awaited():
    class Expired(Exception):
        pass

    state = SimpleNamespace(updating=False)

    async def work():
        raise Expired()

    with pytest.raises(Expired):
        run(state, "updating", work, passes=(Expired,))
    assert state.updating is False

    async def fine():
        return 3

    assert "3 left" in run(state, None, fine, success=lambda n: ("Done", f"{n} left"))[-1]


def test_load_list_shows_loading_first_and_the_error_state_on_failure(caplog):
    from discount_deals.state.actions import load_list

    state = SimpleNamespace(loading=False, failed=True, rows=[])
    steps = load_list(state, lambda: state.rows.append("Rice"), "test list")
    next(steps)  # the first update reaches the browser before the load
    assert (state.loading, state.failed, state.rows) == (True, False, [])
    assert list(steps) == []
    assert (state.loading, state.failed, state.rows) == (False, False, ["Rice"])

    def broken():
        raise RuntimeError("database gone")

    assert list(load_list(state, broken, "test list")) == [None]
    assert (state.loading, state.failed) == (False, True)
    assert "test list failed" in caplog.text


def test_toasts_of_one_subject_replace_each_other():
    from discount_deals.state.actions import seq_number, toast, toast_id

    assert toast_id("Enter the code") == toast_id("Payment successful") == "toast-payment"
    assert toast_id("Added to favorites") == toast_id("Removed from favorites")
    assert toast_id("Logged out") == "toast-Logged out"  # a subject of its own
    shown = toast(("Payment failed", "Try again.", "error"))
    assert "toast-payment" in str(shown.args)
    # A tap's number as the browser sent it (components/optimistic.py), or 0.
    assert seq_number(1764233000123) == 1764233000123
    assert seq_number("12") == 12 and seq_number("x") == 0 and seq_number(-5) == 0 and seq_number(2**60) == 0


def test_a_toast_that_replaces_another_gets_its_whole_lifetime():
    """sonner restarts a toast's timer only when its duration changes: a replacement shown in the
    last moments of the toast it replaced vanished with it. Each toast's duration differs from the
    one before; each clears the description it does not have."""
    shown = [toast((title, None)).args[0][1]._return_expr._args[1]._var_value
             for title in ("Added to cart!", "Quantity updated successfully!")]
    assert shown[0]["duration"] != shown[1]["duration"]
    assert all(4000 <= props["duration"] < 4100 for props in shown)
    assert shown[1]["id"] == "toast-cart" and shown[1]["description"] == ""
