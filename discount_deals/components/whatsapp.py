"""WhatsApp where shoppers are (issue 34 item 6): a chat with the shop on the product, cart and
order pages when DD_WHATSAPP_NUMBER is set, and "Share on WhatsApp" on an order."""

from __future__ import annotations

import reflex as rx

from .ui import icon

CHAT_TEXT = "Chat with us on WhatsApp"
SHARE_TEXT = "Share on WhatsApp"
LINK_CLASS = ("inline-flex items-center gap-2 rounded-md border border-green-700 px-3 py-2 text-sm font-medium "
              "pointer-coarse:min-h-11 "
         "text-green-800 hover:bg-green-50")


def _link(text: str, href, link_id: str) -> rx.Component:
    return rx.el.a(icon("message-circle", 16, class_name="text-green-700"), text, href=href, id=link_id,
                   target="_blank", rel="noopener noreferrer", class_name=LINK_CLASS)


CHAT_BOX_CLASS = "mt-4"


def whatsapp_chat(href) -> rx.Component:
    """The chat link, shown only when the shop has a WhatsApp number (``href`` is "" otherwise);
    web/first_html/markup.py writes the same for the product page's first HTML."""
    return rx.cond(href != "", rx.el.div(_link(CHAT_TEXT, href, "whatsapp-chat"), class_name=CHAT_BOX_CLASS))


def whatsapp_share(href) -> rx.Component:
    return rx.cond(href != "", _link(SHARE_TEXT, href, "whatsapp-share"))
