"""Issue 13 item 9: the OpenAPI document tells the truth. Schemathesis generates requests for
every operation from the document, as a guest, a customer and an admin, and every answer must
be a documented status with a body that matches its documented schema, and never a 5xx.

``DD_SCHEMATHESIS_EXAMPLES`` sets the examples per operation and actor (default 6).
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from discount_deals import models
from discount_deals.web.site import create_app
from discount_deals.db import session_scope
from discount_deals.services.auth.tokens import create_access_token
from discount_deals.services.users import add_user

from ..conftest import truncate_all

EXAMPLES = int(os.environ.get("DD_SCHEMATHESIS_EXAMPLES", "6"))
CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance]

app = create_app()
schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)


@pytest.fixture(scope="module")
def people():
    """A customer and an admin, made once for the whole run (the generated calls change data)."""
    truncate_all()
    with session_scope() as session:
        customer = add_user(session, email="st-customer@example.com", password="secret123", username="stcustomer")
        admin = add_user(session, email="st-admin@example.com", password="secret123", username="stadmin",
                         role=models.Role.ADMIN)
        category = models.Category(name="Schemathesis", slug="schemathesis")
        session.add(category)
    yield {"customer": customer.id, "admin": admin.id}
    truncate_all()


@pytest.fixture(scope="module", params=["guest", "customer", "admin"])
def actor(request, people):
    return people.get(request.param)


def _headers(user_id: str | None) -> dict[str, str]:
    if user_id is None:
        return {}
    with session_scope() as session:
        user = session.get(models.User, user_id)  # its current token version ("log out everywhere" may run)
        if user is None:
            return {}
        if not user.is_active:
            user.is_active = True
            session.add(user)
        return {"Authorization": f"Bearer {create_access_token(user)}"}


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_documented(case, actor):
    case.call_and_validate(headers=_headers(actor), checks=CHECKS)
