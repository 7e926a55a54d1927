"""One-click unsubscribe links: a signed token naming the user and the topic, no login needed.

The token is ``<user id>.<topic>.<HMAC-SHA256>`` (base64url), signed with the app's secret key:
it cannot be made for another user, and it does not expire (an old email's link must still
work). The links point at ``DD_PUBLIC_URL`` (else this machine's address on ``PORT``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import quote

from ... import routes
from ...config.public_url import configured_public_url
from ...config.settings import frontend_build_environment, get_settings, server_settings

TOPICS = {"orders": "order updates", "deals": "deal alerts", "account": "account notices", "cart": "cart reminders"}
ONE_CLICK_API = "/api/notifications/unsubscribe/"


def link_base() -> str:
    """Where links in messages point: DD_PUBLIC_URL, else the address the launcher built the
    frontend for (development: http://localhost:PORT)."""
    built_for = dict(frontend_build_environment()).get("REFLEX_API_URL", "").rstrip("/")
    return configured_public_url() or built_for or f"http://localhost:{server_settings().port or 3000}"


def _signature(user_id: str, topic: str) -> str:
    key = get_settings().secret_key.encode()
    digest = hmac.new(key, f"unsubscribe:{user_id}:{topic}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode().rstrip("=")


def make_token(user_id: str, topic: str) -> str:
    return f"{user_id}.{topic}.{_signature(user_id, topic)}"


def read_token(token: object) -> tuple[str, str] | None:
    """``(user id, topic)`` of a valid token, else None (a token we make is ASCII: anything else,
    ``%C3%A9`` decoded into "é", is not one of ours, and ``hmac.compare_digest`` refuses such text)."""
    if not isinstance(token, str) or len(token) > 200 or not token.isascii() or token.count(".") != 2:
        return None
    user_id, topic, signature = token.split(".")
    if topic not in TOPICS or not hmac.compare_digest(signature, _signature(user_id, topic)):
        return None
    return user_id, topic


def page_url(user_id: str, topic: str) -> str:
    """The link in an email's body: a page that unsubscribes when it opens (in a browser)."""
    return link_base() + routes.unsubscribe_path(make_token(user_id, topic))


def one_click_url(user_id: str, topic: str) -> str:
    """The ``List-Unsubscribe`` URL: mail clients POST ``List-Unsubscribe=One-Click`` to it."""
    return f"{link_base()}{ONE_CLICK_API}?token={quote(make_token(user_id, topic))}"
