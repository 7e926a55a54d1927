"""The audit trail: one row per admin write, recorded in the same transaction as the write."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from .base import id_field, optional_ref_field, utcnow


class AuditEvent(SQLModel, table=True):
    """Who changed what, when, and the fields' values before and after (``changes``:
    ``{field: [before, after]}``). Rows are only ever inserted (services.audit has no update
    or delete, the API only reads)."""

    __tablename__ = "audit_event"
    __table_args__ = (
        # The Activity screen's pages (newest first) and its filters, each served by an index.
        Index("ix_audit_event_created_at_id", "created_at", "id"),
        Index("ix_audit_event_actor_created", "actor_id", "created_at"),
        Index("ix_audit_event_action_created", "action", "created_at"),
        Index("ix_audit_event_target", "target_type", "target_id", "created_at"),
    )

    id: str = id_field()
    # The admin who acted (None: the shop itself, e.g. a timer, or the command line).
    actor_id: str | None = optional_ref_field("user")
    # Who it was, kept readable if the account is deleted ("ama@example.com", "command line").
    actor_label: str = Field(default="", max_length=254)
    action: str = Field(max_length=64)  # "product.update", "user.role", "coupon.create", ...
    target_type: str = Field(max_length=32)  # "product", "category", "user", "order", "coupon", ...
    target_id: str | None = Field(default=None, max_length=64)
    # The target's name when the event was recorded (a deleted product keeps its name here).
    target_label: str = Field(default="", max_length=254)
    changes: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, nullable=False)
