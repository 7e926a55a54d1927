"""Auth: tokens, refresh, verify, logout (SPEC §7 Auth and users).

None of these endpoints reads the ``Authorization`` header (except "log out everywhere",
which acts for the caller): the existing client sends its stale bearer with every request,
and these calls must work regardless.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..db import session_scope
from ..services import auth
from ..services.auth import login
from ..services.auth.login import LoginThrottled
from .admission import in_turn, off_turn, takes_turns
from .deps import CurrentUser, SessionDep, WriteSessionDep, client_address
from .errors import service_error_response
from .routing import ApiRouter
from .schemas import SIGNED_OUT, Message, answer, documented
from .user_schemas import UserOut
from .users import user_json

router = ApiRouter(tags=["auth"])

INVALID_TOKEN = "Token is invalid or expired"
# What the endpoints that take a refresh token in their body answer besides success.
TOKEN_ERRORS = {400: answer(), 401: answer(INVALID_TOKEN)}


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["email", "password"]})

    email: str | None = Field(None, json_schema_extra=documented(type="string", minLength=1, maxLength=254))
    password: str | None = Field(None, json_schema_extra=documented(type="string", minLength=1, maxLength=256))
    device: str | None = Field(
        None, description="The device token of an earlier login on this device: during a lock caused by "
        "failed logins, the owner's device still gets in", json_schema_extra=documented(type="string", maxLength=4096),
    )


class TokenPairOut(BaseModel):
    access: str = Field(description="Access token (Bearer), valid 15 minutes")
    refresh: str = Field(description="Refresh token, valid 7 days")
    device: str = Field(description="Device token, valid 90 days: send it with the next login (field `device`) "
                        "and this device gets in even while failed logins from elsewhere lock the account")
    user: UserOut


class RefreshIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    refresh: str


class AccessOut(BaseModel):
    access: str = Field(description="A new access token")
    refresh: str = Field(
        description="The next refresh token of the same family. The one sent stays valid until this one "
        "is used (clients that ignore rotation keep working); once a newer token was used, presenting an "
        "older one revokes the family."
    )


class VerifyIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    token: str


class VerifyOut(BaseModel):
    success: bool
    detail: str | None = None


@router.post(
    "/auth/token/",
    response_model=TokenPairOut,
    responses={
        400: answer("Email or password missing"),
        401: answer("Invalid credentials"),
        429: answer("Too many failed attempts; see the Retry-After header"),
    },
    summary="Log in with email and password",
)
@takes_turns
async def obtain_token(body: LoginIn, request: Request):
    # The original client sends its last bearer with every request: a stale one still names the device.
    scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
    proofs = [body.device, bearer.strip() if scheme.lower() == "bearer" else None]
    email, password, client = body.email or "", body.password or "", client_address(request)
    try:
        started = await in_turn(lambda: login.start_login(email, password, client, proofs))
    except LoginThrottled as exc:
        # The original client shows data.message, else "Invalid credentials": a locked account's
        # owner is told why, not that the password is wrong. (Other refusals keep the one-key body
        # the original client's tests compare whole.)
        return service_error_response(exc, also={"message": exc.detail})
    new_hash = await off_turn(lambda: login.check_password(started, password))  # argon2: no turn held
    return await in_turn(lambda: _logged_in(request, started, new_hash))


def _logged_in(request: Request, started: login.LoginStart, new_hash: str | None) -> dict:
    with session_scope() as session:
        user, tokens = login.finish_login(session, started, new_hash)
        return {"access": tokens.access, "refresh": tokens.refresh, "device": tokens.device,
                "user": user_json(request, session, user)}


@router.post(
    "/auth/token/refresh/",
    response_model=AccessOut,
    responses=TOKEN_ERRORS,
    summary="A new access token, and the next refresh token, for a refresh token",
)
def refresh_token(body: RefreshIn, session: WriteSessionDep):
    pair, _user = auth.refresh_tokens(session, body.refresh)
    return {"access": pair.access, "refresh": pair.refresh}


@router.post(
    "/auth/token/verify/",
    response_model=VerifyOut,
    response_model_exclude_none=True,  # SPEC §7: a success boolean only ({"success": true})
    responses={400: answer(), 401: answer(INVALID_TOKEN, VerifyOut)},
    summary="Whether a token is valid",
)
def verify_token(body: VerifyIn, session: SessionDep):
    if not auth.token_is_valid(session, body.token):
        return JSONResponse({"success": False, "detail": INVALID_TOKEN}, status_code=401)
    return {"success": True}


@router.post(
    "/auth/logout/",
    response_model=Message,
    responses=TOKEN_ERRORS,
    summary="Revoke a refresh token",
)
def logout(body: RefreshIn, session: WriteSessionDep):
    auth.revoke_refresh_token(session, body.refresh)
    return {"detail": "Logged out"}


@router.post(
    "/auth/logout-all/",
    response_model=Message,
    responses=SIGNED_OUT,
    summary="Log out everywhere: every access and refresh token of the caller stops working",
)
def logout_everywhere(session: WriteSessionDep, user: CurrentUser):
    auth.log_out_everywhere(session, user)
    return {"detail": "Logged out everywhere"}
