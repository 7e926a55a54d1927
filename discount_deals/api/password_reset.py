"""The password reset (issue 22): by an email link or an SMS code.

- ``POST /auth/password-reset/`` ``{"email"}`` or ``{"phone"}``: always 202 with the same body.
- ``POST /auth/password-reset/confirm/`` ``{"token" | "phone" + "code", "password"}``: 200, then
  every session and token of the account is revoked; a used, expired or wrong one is a 400.

Like the other auth endpoints, these ignore any bearer header.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..db import write_session
from ..services.auth import password_reset
from .admission import in_turn, off_turn, takes_turns
from .deps import WriteSessionDep, client_address
from .routing import ApiRouter
from .schemas import Message, answer, documented

router = ApiRouter(tags=["auth"])


class ResetIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    email: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=254))
    phone: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=40))


class ResetConfirmIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["password"]})

    token: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=100))
    phone: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=40))
    code: str | None = Field(None, json_schema_extra=documented(type="string", maxLength=12))
    password: str | None = Field(None, json_schema_extra=documented(type="string", minLength=6, maxLength=256))


@router.post(
    "/auth/password-reset/",
    status_code=202,
    response_model=Message,
    responses={400: answer("Neither a valid email nor a valid phone number"),
               429: answer("Too many requests from this address; see Retry-After")},
    summary="Send a password reset link (email) or code (SMS); the same answer whether or not an account matches",
)
def request_password_reset(body: ResetIn, request: Request, session: WriteSessionDep):
    password_reset.request_reset(session, body.model_dump(exclude_none=True), client_address(request))
    return JSONResponse({"detail": password_reset.ACCEPTED}, status_code=202)


@router.post(
    "/auth/password-reset/confirm/",
    response_model=Message,
    responses={400: answer("Invalid, used or expired token or code, or an unacceptable password")},
    summary="Set a new password with a reset token or SMS code; every session of the account ends",
)
@takes_turns
async def confirm_password_reset(body: ResetConfirmIn):
    data = body.model_dump(exclude_none=True)
    new_hash = await off_turn(lambda: password_reset.new_password_hash(data))  # argon2: no turn held
    await in_turn(lambda: _confirm(data, new_hash))
    return {"detail": "Your password has been reset. Log in with your new password."}


def _confirm(data: dict, new_hash: str) -> None:
    with write_session() as session:
        password_reset.confirm_reset(session, data, new_hash)
