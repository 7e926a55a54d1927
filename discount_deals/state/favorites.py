"""Favourites: per-user lists in the browser (``favorites-storage``, guest key ``guest``), and for a
logged-in user also on the server (services.favourites), so they follow the user across devices.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import reflex as rx

from .. import routes
from ..db import session_scope, write_session
from ..services import ServiceError
from ..services import catalog
from ..services import favourites as favourites_service
from .session import SessionExpired, SessionState
from ..display import ProductView, product_snapshot, product_view

log = logging.getLogger("discount_deals.favorites")

GUEST = "guest"


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


class FavoritesState(rx.State):
    favorites_storage: str = rx.LocalStorage(name="favorites-storage")
    active_user_id: str = rx.LocalStorage(name="activeFavoritesUserId")

    ids: list[str] = []
    items: list[ProductView] = []
    loaded: bool = False

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

    @rx.event
    async def load(self):
        """Activate the right list for whoever is logged in (every page: the header shows the count)."""
        session_state = await self.get_state(SessionState)
        try:
            user = await session_state._authenticated_user()
        except SessionExpired:
            user = None
        moved = self._switch_user(user.id if user else "")
        if user is not None:
            try:
                self._sync_with_server(user, moved)
            except Exception:
                log.exception("favourites sync failed")
        self.loaded = True

    @rx.event
    async def load_page(self):
        """/favorites: only for logged-in users (others go to /login and come back)."""
        session_state = await self.get_state(SessionState)
        if not session_state.is_logged_in:
            return session_state._login_redirect(routes.FAVORITES)
        with session_scope() as session:
            found = catalog.products_by_ids(session, self.ids)
        self.items = [product_view(*found[pid]) for pid in self.ids if pid in found]

    @rx.event
    async def toggle(self, product_id: str):
        session_state = await self.get_state(SessionState)
        try:
            user = await session_state._authenticated_user()
        except SessionExpired:
            return session_state._login_redirect()
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
                try:
                    product, category = catalog.get_product(session, product_id)
                except ServiceError:
                    return rx.toast.error("Error", description="This product is no longer available.")
                mine.append({"product": product_snapshot(product, category), "addedAt": _now()})
                if user is not None:
                    favourites_service.add_favourite(session, user, product_id)
        self.favorites_storage = _write(lists, key)
        self.active_user_id = user.id if user else ""
        self.ids = [e["product"]["id"] for e in mine]
        self.items = [item for item in self.items if item.id in self.ids]
        return rx.toast.success("Removed from favorites" if present else "Added to favorites")
