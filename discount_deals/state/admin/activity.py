"""Admin Activity tab: the audit trail, newest first, filtered by who, what, which object and
when, each event linking to what it changed (services.audit; read-only)."""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import urlencode

import reflex as rx
from sqlmodel import Session

from ...display import ghana_time
from ... import routes
from ...models import AuditEvent, User
from ...services import ServiceError, audit
from ..actions import load_list
from ..forms import form_text
from ..guards import admin_event
from .gate import admin_tab
from .listing import AdminList, choice

ANY = "any"
ACTION_FILTERS: list[tuple[str, str]] = [(ANY, "All actions"), *audit.ACTIONS.items()]
TARGET_FILTERS: list[tuple[str, str]] = [(ANY, "Everything"), *audit.TARGET_TYPES.items()]
# Where an event's target is found in the back office (the tab, searched for the target).
TARGET_TABS = {"product": "products", "user": "users", "order": "orders", "coupon": "coupons",
               "category": "categories", "pickup_store": "stores"}
MAX_SHOWN_CHANGES = 12
MAX_VALUE_LENGTH = 80


@dataclasses.dataclass
class ActivityRow:
    id: str = ""
    when: str = ""
    when_iso: str = ""
    actor: str = ""
    action: str = ""
    action_label: str = ""
    target_type: str = ""
    target_label: str = ""
    target_href: str = ""
    changes: list[str] = dataclasses.field(default_factory=list)


UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
CODE = re.compile(r"^[a-z]+(_[a-z]+)+$")  # a stored value such as "ready_for_pickup"
MOMENT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


def field_label(field: str) -> str:
    """A recorded field as an admin reads it: "discount_price" → "Discount price", "is_featured"
    → "Featured", "category_id" → "Category"."""
    words = field.removeprefix("is_").removesuffix("_id").replace("_", " ").strip() or field
    return words[:1].upper() + words[1:]


def _word(value: Any) -> str:
    """One recorded value in words: an id by its first eight characters (as orders are numbered),
    a time as Accra reads it, a stored code with spaces."""
    text = str(value)
    if UUID.match(text):
        return "#" + text[:8]
    if MOMENT.match(text):
        try:
            return ghana_time(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            return text
    return text.replace("_", " ") if CODE.match(text) else text


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):  # an address, a store: its parts that say something
        text = ", ".join(_shown(part) for part in value.values() if part not in (None, "", [], {})) or "(none)"
    elif isinstance(value, list):
        text = ", ".join(_shown(item) for item in value) or "(none)"
    elif value == "":
        text = "(blank)"
    else:
        text = _word(value)
    return text if len(text) <= MAX_VALUE_LENGTH else text[: MAX_VALUE_LENGTH - 1] + "…"


def change_lines(changes: dict[str, Any]) -> list[str]:
    """``{field: [before, after]}`` as "Field: before → after" lines (a long list is cut short)."""
    lines = []
    for field, pair in changes.items():
        before, after = (pair + [None, None])[:2] if isinstance(pair, list) else (None, pair)
        label = field_label(str(field))
        if before is None:
            lines.append(f"{label}: {_shown(after)}")
        elif after is None:
            lines.append(f"{label}: {_shown(before)} (removed)")
        else:
            lines.append(f"{label}: {_shown(before)} → {_shown(after)}")
    if len(lines) > MAX_SHOWN_CHANGES:
        lines = [*lines[:MAX_SHOWN_CHANGES], f"… and {len(lines) - MAX_SHOWN_CHANGES} more"]
    return lines


def target_href(event: AuditEvent) -> str:
    """A link to the changed object in the back office (its tab, searched for it)."""
    tab = TARGET_TABS.get(event.target_type)
    if tab is None:
        return ""
    query: dict[str, str] = {"tab": tab}
    if event.target_type == "order" and event.target_id:
        query["q"] = event.target_id[:8]
    elif event.target_type in ("product", "user", "coupon") and event.target_label and event.target_id:
        query["q"] = event.target_label
    return f"{routes.ADMIN}?{urlencode(query)}"


def activity_row(event: AuditEvent) -> ActivityRow:
    moment = event.created_at
    return ActivityRow(
        id=event.id,
        when=ghana_time(moment, "%d %b %Y, %H:%M:%S"),
        when_iso=moment.isoformat(),
        actor=event.actor_label or "—",
        action=event.action,
        action_label=audit.action_label(event.action),
        target_type=audit.TARGET_TYPES.get(event.target_type, event.target_type),
        target_label=event.target_label or (event.target_id or ""),
        target_href=target_href(event),
        changes=change_lines(event.changes or {}),
    )


def _day(raw: Any) -> date | None:
    try:
        return date.fromisoformat(raw.strip()) if isinstance(raw, str) and raw.strip() else None
    except ValueError:
        return None


@admin_tab("activity")
class AdminActivityState(AdminList, rx.State):
    PAGE_SIZE: ClassVar[int] = 25
    LIST_NAME: ClassVar[str] = "activity list"
    rows: list[ActivityRow] = []
    actor: str = ""
    action: str = ANY
    target_type: str = ANY
    target_id: str = ""
    date_from: str = ""
    date_to: str = ""
    error: str = ""  # why the service refused the filters
    form_key: int = 0

    @rx.var
    def summary(self) -> str:
        noun = "event" if self.total == 1 else "events"
        return f"{self.total} {noun}"

    @rx.var
    def filtered(self) -> bool:
        return bool(self.actor or self.action != ANY or self.target_type != ANY or self.target_id
                    or self.date_from or self.date_to)

    def _filters(self) -> audit.AuditFilters:
        return audit.AuditFilters(
            actor=self.actor,
            action="" if self.action == ANY else self.action,
            target_type="" if self.target_type == ANY else self.target_type,
            target_id=self.target_id,
            date_from=_day(self.date_from),
            date_to=_day(self.date_to),
        )

    def _query(self, session: Session, admin: User) -> tuple[list[AuditEvent], int]:
        return audit.list_events(session, admin, self._filters(), offset=self._offset(), limit=self.PAGE_SIZE)

    def _row(self, item: AuditEvent) -> ActivityRow:
        return activity_row(item)

    def _refused(self, error: Exception) -> None:
        """A refused filter (e.g. dates the wrong way round) is said, not shown as a failure."""
        if isinstance(error, ServiceError):
            self.rows, self.total, self.failed, self.error = [], 0, False, error.detail

    def _fetch(self, admin: User, fill: Callable[[User], None] | None = None):
        self.error = ""
        return load_list(self, lambda: (fill or self._fill)(admin), self.LIST_NAME, on_error=self._refused)

    def _apply_query(self, query: str) -> None:
        """A link from elsewhere in the back office: the history of one object (by id)."""
        self._clear()
        self.target_id = query.strip()[:64]

    def _clear(self) -> None:
        self.actor = self.target_id = self.date_from = self.date_to = ""
        self.action = self.target_type = ANY
        self.page = 1
        self.form_key += 1

    @admin_event
    def apply_filters(self, admin: User, form: dict[str, Any]):
        def text(name: str, limit: int = 254) -> str:
            return form_text(form, name, strip=True, limit=limit)

        self.actor = text("activity_actor")
        self.action = choice(text("activity_action"), ACTION_FILTERS, ANY)
        self.target_type = choice(text("activity_target_type"), TARGET_FILTERS, ANY)
        self.target_id = text("activity_target_id", 64)
        self.date_from = text("activity_date_from", 10) if _day(text("activity_date_from", 10)) else ""
        self.date_to = text("activity_date_to", 10) if _day(text("activity_date_to", 10)) else ""
        return self._refetch(admin)

    @admin_event
    def clear_filters(self, admin: User):
        self._clear()
        return self._fetch(admin)
