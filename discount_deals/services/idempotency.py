"""Idempotent requests: a retried upload gets the first answer instead of running twice.

A client that lost the connection after the server committed a bulk upload retries with the
same ``Idempotency-Key``; :func:`replay` finds the stored answer of that user, endpoint and
key, and :func:`remember` stores a first answer in the same transaction as the work it
describes (both are kept, or neither). The same key with a different request is refused
(409); keys are forgotten after :data:`KEEP_HOURS`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session, delete, select

from ..models import IdempotentRequest
from . import Conflict, ValidationFailed
from .error_codes import ErrorCode

KEEP_HOURS = 24
_KEY = re.compile(r"[\x21-\x7e]{1,255}")  # visible ASCII, as Stripe and the IETF draft allow
INVALID_KEY = "Idempotency-Key must be 1 to 255 visible ASCII characters."
KEY_REUSED = "This Idempotency-Key was already used for a different request."


@dataclass(frozen=True)
class StoredAnswer:
    status: int
    body: dict[str, Any]


def clean_key(raw: str | None) -> str | None:
    """The header's key, None when absent; 400 when it is not a usable key."""
    if raw is None:
        return None
    key = raw.strip()
    if not _KEY.fullmatch(key):
        raise ValidationFailed(INVALID_KEY, fields={"Idempotency-Key": [INVALID_KEY]}, code=ErrorCode.IDEMPOTENCY_KEY_INVALID)
    return key


def fingerprint(payload: Any) -> str:
    """What identifies "the same request": its parsed content, not its bytes (a retried
    multipart body has a new boundary)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def replay(session: Session, user_id: str, scope: str, key: str, print_: str) -> StoredAnswer | None:
    """The stored answer for this key, None for a new key, 409 when the key came with another request."""
    stored = session.exec(
        select(IdempotentRequest).where(
            IdempotentRequest.user_id == user_id, IdempotentRequest.scope == scope, IdempotentRequest.key == key
        )
    ).first()
    if stored is None:
        return None
    if stored.fingerprint != print_:
        raise Conflict(KEY_REUSED, code=ErrorCode.IDEMPOTENCY_KEY_REUSED)
    return StoredAnswer(stored.status_code, json.loads(stored.body))


def remember(session: Session, user_id: str, scope: str, key: str, print_: str, status: int, body: dict) -> None:
    """Store the first answer (flushed: a racing twin fails here on the unique key)."""
    cutoff = datetime.now(UTC) - timedelta(hours=KEEP_HOURS)
    session.execute(delete(IdempotentRequest).where(IdempotentRequest.created_at < cutoff))
    session.add(
        IdempotentRequest(
            user_id=user_id, scope=scope, key=key, fingerprint=print_, status_code=status, body=json.dumps(body)
        )
    )
    session.flush()
