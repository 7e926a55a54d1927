"""Favourites: per-user lists in the browser (``favorites-storage``, guest key ``guest``), and for a
logged-in user also on the server (services.favourites), so they follow the user across devices.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import reflex as rx

from ...db import session_scope, write_session
from ...display import ProductView, product_snapshot, product_view
from ...models import User
from ...services import ServiceError
from ...services import catalog
from ...services import favourites as favourites_service
from ..account.session import SessionState, fresh, per_user, visit_key
from ..actions import busy_call, load_list, seq_number
from ..forms import text_arg
from ..guards import current_user, user_event
from .deal_offer import DealOfferState

GUEST = "guest"
UNAVAILABLE = "This product is no longer available."


def _read(raw: str) -> dict[str, list[dict]]:
    try:
        data = json.loads(raw) if raw else {}
        lists = data.get("state", {}).get("favoritesByUser", {})
    except (ValueError, AttributeError):
        return {}
    if not isinstance(lists, dict):
        return {}
    cleaned: dict[str, list[dict]] = {}
    for key, entries in lists.items():
        if not isinstance(entries, list):
            continue
        seen, kept = set(), []
        for entry in entries:
            product = entry.get("product") if isinstance(entry, dict) else None
            if isinstance(product, dict) and isinstance(product.get("id"), str) and product["id"] not in seen:
                seen.add(product["id"])
                kept.append({"product": product, "addedAt": entry.get("addedAt") or _now()})
        cleaned[str(key)] = kept
    return cleaned


def _write(lists: dict[str, list[dict]], active: str) -> str:
    return json.dumps({"state": {"favoritesByUser": lists, "activeUserKey": active}, "version": 0})


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@per_user
class FavoritesState(rx.State):
    favorites_storage: str = rx.LocalStorage(name="favorites-storage")
    active_user_id: str = rx.LocalStorage(name="activeFavoritesUserId")

    ids: list[str] = []
    items: list[ProductView] = []
    loaded: bool = False
    # The last heart tap answered (its time in the browser): components/optimistic.py shows the
    # tap's expected result until this catches up, in the same update as the new ids.
    acked_seq: int = 0
    # Whose list the header's count shows, and since when (account/session.fresh).
    _shown_for: str = ""
    _shown_at: float = 0.0

    @rx.var
    def count(self) -> int:
        return len(self.ids)

    def _active_key(self) -> str:
        return self.active_user_id or GUEST

    def _switch_user(self, user_id: str) -> list[str]:
        """Make ``user_id`` (or the guest) active; a user absorbs the guest's list without duplicates.

        Returns the ids that moved from the guest's list to the user's.
        """
        lists = _read(self.favorites_storage)
        moved: list[str] = []
        if user_id:
            mine = lists.setdefault(user_id, [])
            present = {e["product"]["id"] for e in mine}
            for entry in lists.get(GUEST, []):
                if entry["product"]["id"] not in present:
                    mine.append(entry)
                    moved.append(entry["product"]["id"])
            lists[GUEST] = []
        self.active_user_id = user_id
        key = user_id or GUEST
        self.favorites_storage = _write(lists, key)
        self.ids = [e["product"]["id"] for e in lists.get(key, [])]
        return moved

    def _sync_with_server(self, user, moved: list[str]) -> None:
        """Push favourites brought over from the guest list, then mirror the server's list.

        The server is the user's source of truth, so a favourite removed on another device
        disappears here too.
        """
        if moved:
            with write_session() as session:
                for product_id in moved:
                    try:
                        favourites_service.add_favourite(session, user, product_id)
                    except ServiceError:
                        pass  # the product no longer exists
        with session_scope() as session:
            server_ids = favourites_service.favourite_product_ids(session, user)
            found = catalog.products_by_ids(session, server_ids)
        lists = _read(self.favorites_storage)
        previous = {e["product"]["id"]: e for e in lists.get(user.id, [])}
        lists[user.id] = [
            previous.get(pid) or {"product": product_snapshot(*found[pid]), "addedAt": _now()}
            for pid in server_ids
            if pid in found
        ]
        self.favorites_storage = _write(lists, user.id)
        self.ids = [e["product"]["id"] for e in lists[user.id]]

    def _forget(self) -> None:
        """Logged out: the guest's list is the one shown (the user's stays stored for next time)."""
        self._switch_user("")

    def _sync(self, user: User | None, moved: list[str]) -> None:
        if user is not None:
            self._sync_with_server(user, moved)

    async def _load_once(self):
        """Activate the right list for whoever is logged in (the header shows the count), once
        per visit and account (see account/session.fresh)."""
        who = visit_key(self, "user:" + (await self.get_state(SessionState)).user_id)
        if self.loaded and fresh(who, self._shown_for, self._shown_at):
            return
        self._shown_for, self._shown_at = who, time.time()
        user = await current_user(self)
        moved = self._switch_user(user.id if user else "")
        for update in load_list(self, lambda: self._sync(user, moved), "favourites sync", loading=None, failed=None):
            yield update
        self.loaded = True

    def _show_items(self) -> None:
        with session_scope() as session:
            found = catalog.products_by_ids(session, self.ids)
        self.items = [product_view(*found[pid]) for pid in self.ids if pid in found]

    @user_event
    def load_page(self, user: User):
        """/favorites: only for logged-in users (others go to /login and come back)."""
        return load_list(self, self._show_items, "favourites page", loading=None, failed=None)

    def _toggle(self, user: User | None, product_id: str) -> bool:
        """Add or remove ``product_id`` in the active list (and on the server for a user); True
        when it was removed."""
        key = user.id if user else GUEST
        lists = _read(self.favorites_storage)
        mine = lists.setdefault(key, [])
        present = any(e["product"]["id"] == product_id for e in mine)
        with (write_session() if user is not None else session_scope()) as session:
            if present:
                mine[:] = [e for e in mine if e["product"]["id"] != product_id]
                if user is not None:
                    try:
                        favourites_service.remove_favourite(session, user, product_id)
                    except ServiceError:
                        pass  # not on the server: the browser list was the only copy
            else:
                product, category = catalog.get_product(session, product_id)
                mine.append({"product": product_snapshot(product, category), "addedAt": _now()})
                if user is not None:
                    favourites_service.add_favourite(session, user, product_id)
        self.favorites_storage = _write(lists, key)
        self.active_user_id = user.id if user else ""
        self.ids = [e["product"]["id"] for e in mine]
        self.items = [item for item in self.items if item.id in self.ids]
        return present

    def _answer(self, seq: int, work):
        """Run ``work``, then mark the tap ``seq`` answered (whatever came of it)."""
        try:
            return work()
        finally:
            self.acked_seq = max(self.acked_seq, seq_number(seq))

    @user_event(guests=True)
    def toggle(self, user: User | None, product_id: str, seq: int = 0):
        product_id = text_arg(product_id)
        return busy_call(
            self, None, lambda: self._answer(seq, lambda: self._toggle(user, product_id)),
            success=lambda removed: ("Removed from favorites" if removed else "Added to favorites", None),
            describe=lambda _refusal: UNAVAILABLE,
            then=lambda removed: self._after_toggle(user, removed),
        )

    def _after_toggle(self, user: User | None, removed: bool):
        """A signed-in shopper's first favourite: offer deal alerts (the offer checks they are off)."""
        if user is not None and not removed and len(self.ids) == 1:
            return DealOfferState.offer
        return None
