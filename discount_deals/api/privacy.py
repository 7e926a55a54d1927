"""A customer's own data (issue 32; Act 843): ``GET /users/me/export/`` downloads all of it as
JSON, ``POST /users/me/close/`` closes the account (the password again), keeping its orders
anonymised for the books (:mod:`discount_deals.services.users.privacy`)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..db import write_session
from ..models import User
from ..services.auth.password_checks import PasswordCheck, run_check
from ..services.users import privacy
from .admission import in_turn, off_turn, takes_turns
from .deps import CurrentUser, SessionDep
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
@declares(400, 401, 409, 429)  # 429: the password tried too often (services.auth.password_checks)
@takes_turns
async def close_my_account(body: CloseIn, user: CurrentUser) -> Response:
    """Close the signed-in customer's account: personal data erased, every token retired, the
    orders kept anonymised. 400 for a wrong password; 409 while an order is on its way or for
    an admin; 429 after too many passwords tried."""
    pending = await in_turn(lambda: _count_check(user, body.password))
    checked = await off_turn(lambda: run_check(pending))  # argon2: no turn held
    await in_turn(lambda: _close(user, body.password, checked))
    return Response(status_code=204)


def _count_check(user: User, password: str) -> PasswordCheck | None:
    with write_session() as session:  # committed at once: the count outlives a refusal
        return privacy.count_closing_check(session, user, password)


def _close(user: User, password: str, checked: PasswordCheck | None) -> None:
    with write_session() as session:
        privacy.close_account(session, user, password, checked)
