"""What a form keeps of its typing in the tab's session storage (assets/shop.js): a form marked
``data-keep-draft="<name>"`` is filled back after a refresh, Back and Forward, until its state
forgets the draft (the server saved what it holds) or a logout forgets them all."""

from __future__ import annotations

import json

import reflex as rx

CHECKOUT_ADDRESS = "checkout-address-"  # + the account's id: another account on the tab meets none of it


def forget_drafts_script(name: str = "") -> str:
    """The script that forgets the drafts whose name starts with ``name`` (all of them for "")."""
    return f"window.ddForgetDrafts && window.ddForgetDrafts({json.dumps(name)});"


def forget_drafts(name: str = ""):
    return rx.call_script(forget_drafts_script(name))
