"""WhatsApp links (issue 34 item 6): the shop's number from DD_WHATSAPP_NUMBER, chat links with
the product, cart or order typed in, and none without a number."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from discount_deals.display import whatsapp_chat_url, whatsapp_order_share_url
from discount_deals.config.settings import get_settings
from discount_deals.config.settings_money import whatsapp_number


@pytest.mark.parametrize("raw", ["024 123 9999", "+233 24 123 9999", "233241239999", "0241239999"])
def test_the_number_is_kept_as_wa_me_takes_it(raw):
    assert whatsapp_number(raw) == "233241239999"


@pytest.mark.parametrize("raw", ["12", "not a phone", "024 123"])
def test_a_number_that_is_no_phone_number_is_refused_by_name(raw):
    with pytest.raises(ValueError, match="DD_WHATSAPP_NUMBER"):
        whatsapp_number(raw)


def test_no_number_no_chat_link(monkeypatch):
    monkeypatch.delenv("DD_WHATSAPP_NUMBER", raising=False)
    get_settings.cache_clear()
    try:
        assert whatsapp_chat_url("Hello") == ""
    finally:
        get_settings.cache_clear()


def test_a_chat_link_opens_the_shops_chat_with_the_text_typed_in(monkeypatch):
    monkeypatch.setenv("DD_WHATSAPP_NUMBER", "+233 24 123 9999")
    get_settings.cache_clear()
    try:
        url = urlsplit(whatsapp_chat_url("Hello, I have a question about my order #1a2b3c4d."))
    finally:
        get_settings.cache_clear()
    assert (url.scheme, url.netloc, url.path) == ("https", "wa.me", "/233241239999")
    assert parse_qs(url.query)["text"] == ["Hello, I have a question about my order #1a2b3c4d."]


def test_sharing_an_order_names_the_shop_and_no_order_detail():
    url = urlsplit(whatsapp_order_share_url("https://deals.example/"))
    text = parse_qs(url.query)["text"][0]
    assert url.path == "/" and "Discount Deals" in text and text.endswith("https://deals.example/")
