"""state.forms: reading what a browser submits, and putting the server's values back into a form
without dropping what the shopper did while the answer was on its way."""

from __future__ import annotations

from types import SimpleNamespace

from discount_deals.state.account.notification_prefs import NotificationPrefsState
from discount_deals.state.forms import form_checked, form_text, show_form_values


def test_a_field_that_is_not_text_reads_as_empty_and_is_cut_to_its_limit():
    assert form_text({"name": ["a"]}, "name") == ""
    assert form_text({}, "name") == ""
    assert form_text({"name": "  Ama  "}, "name", strip=True, limit=2) == "Am"


def test_a_checkbox_is_on_only_for_what_a_browser_sends_when_checked():
    assert [form_checked({"x": v}, "x") for v in ("on", "true", True, "off", "", 1, None)] == [
        True, True, True, False, False, False, False]


def test_the_same_values_leave_the_form_mounted_so_a_tap_made_meanwhile_survives():
    # The CI failure of stop 38: a reload shows the stored preferences from the restored state; the
    # page load's answer, with the same values, came after the shopper ticked "Remind me about my
    # cart" and remounted the form, unticking it, so the save stored the old value.
    form = SimpleNamespace(cart_reminders=False, order_updates="sms", form_version=4)
    show_form_values(form, {"cart_reminders": False, "order_updates": "sms"})
    assert form.form_version == 4


def test_new_values_remount_the_form_once():
    form = SimpleNamespace(cart_reminders=True, order_updates="email", form_version=4)
    show_form_values(form, {"cart_reminders": False, "order_updates": "sms"})
    assert (form.cart_reminders, form.order_updates, form.form_version) == (False, "sms", 5)


def test_the_message_preferences_card_keeps_its_form_when_a_load_finds_nothing_new():
    state = SimpleNamespace(order_updates="sms", deal_alerts="off", account_email=True, cart_reminders=False,
                            deal_emails=True, sms_number="", form_version=2, loaded=False)
    prefs = SimpleNamespace(order_updates="sms", deal_alerts="off", account_email=True, cart_reminders=False,
                            deal_emails=True, phone="+233241234567")
    NotificationPrefsState._show(state, prefs)
    assert state.form_version == 2 and state.sms_number == "024 123 4567" and state.loaded is True
    NotificationPrefsState._show(state, SimpleNamespace(**{**vars(prefs), "cart_reminders": True}))
    assert state.form_version == 3 and state.cart_reminders is True


def test_the_store_form_is_emptied_after_a_save_even_when_the_server_held_no_values():
    # The server never held what the admin typed into "Add a pickup store" (the browser owns
    # the fields), so "nothing changed" must not keep the typed store in the form after a save.
    from discount_deals.state.admin.stores import AdminStoresState, StoreForm

    state = SimpleNamespace(editing_id="", form=StoreForm(), form_version=7)
    AdminStoresState._reset_form(state)
    assert (state.editing_id, state.form, state.form_version) == ("", StoreForm(), 8)


def test_the_answer_to_a_save_always_remounts_the_form_so_it_shows_what_was_stored():
    # The server may tidy what was typed ("Kwame " is stored "Kwame"): after the form's own save
    # its fields show the stored values, even when the server's copy had them already.
    form = SimpleNamespace(first_name="Kwame", form_version=4)
    show_form_values(form, {"first_name": "Kwame"}, saved=True)
    assert form.form_version == 5
