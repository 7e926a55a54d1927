"""A customer's own data (issue 32; Act 843): ``GET /users/me/export/`` downloads all of it as
JSON, ``POST /users/me/close/`` closes the account (the password again), keeping its orders
anonymised for the books (:mod:`discount_deals.services.users.privacy`)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..services.users import privacy
from .deps import CurrentUser, SessionDep, WriteSessionDep
from .openapi import declares
from .routing import ApiRouter
from .schemas import documented

router = ApiRouter(tags=["users"])


class CloseIn(BaseModel):
    password: str = Field(json_schema_extra=documented(maxLength=256, description="The account's password, again"))


@router.get("/users/me/export/")
@declares(401)
def export_my_data(session: SessionDep, user: CurrentUser) -> JSONResponse:
    """Everything the shop keeps about the signed-in customer, as a JSON file to keep."""
    name = f"discount-deals-data-{datetime.now(UTC):%Y-%m-%d}.json"
    return JSONResponse(privacy.export_data(session, user),
                        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@router.post("/users/me/close/", status_code=204, response_class=Response)
@declares(400, 401, 409)
def close_my_account(body: CloseIn, session: WriteSessionDep, user: CurrentUser) -> Response:
    """Close the signed-in customer's account: personal data erased, every token retired, the
    orders kept anonymised. 400 for a wrong password; 409 while an order is on its way or for
    an admin."""
    checked = privacy.check_password(user, body.password)  # before the write session's first statement
    privacy.close_account(session, user, body.password, checked)
    return Response(status_code=204)
