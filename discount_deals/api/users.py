"""Users: register, me, user and profile updates, addresses, admin user management.

Every rule lives in :mod:`discount_deals.services.users`; this module only translates HTTP.
Endpoints that change data run the service in a :data:`WriteSessionDep`: on SQLite a
transaction that reads and then writes fails at once if another connection wrote in between,
while one that takes the write lock first simply waits its turn. The caller is authenticated
beforehand through the ordinary read session, so the lock is not held for that.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import EllipsisType
from typing import Annotated, Any

from fastapi import Depends, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sqlmodel import Session
from starlette.datastructures import UploadFile

from ..db import session_scope, write_session
from ..models import User
from ..services import ValidationFailed
from ..services import users as accounts
from ..services.auth.passwords import hash_password
from ..services.rows import values_of
from ..config.settings import get_settings
from .admission import in_turn, off_turn, takes_turns
from .bodies import body_limit, image_body_limit
from .deps import AdminUser, CurrentUser, SessionDep, WriteSessionDep, client_address
from .pagination import Page, build_page, page_request
from .openapi import declares, paginated
from .routing import ApiRouter
from .schemas import NOT_ADMIN, SIGNED_OUT, absolute_url, answer
from .user_schemas import (
    AddressCreateIn,
    AddressIn,
    AddressOut,
    AdminUserOut,
    ProfileIn,
    ProfileOut,
    RegisterIn,
    RoleIn,
    UserOut,
    UserUpdateIn,
)

router = ApiRouter(tags=["users"])

# The existing client reads only the first page of a list, so a page holds 100 by default.
LIST_PAGE_SIZE = 100

AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    400: answer("Invalid input (with a field map)"),
    **SIGNED_OUT,
}
OWNER_ERRORS = {**AUTH_ERRORS, 404: answer("Not found, or not yours")}
ADMIN_ERRORS = {**AUTH_ERRORS, **NOT_ADMIN}


# --- serializers ---------------------------------------------------------------------------------


def _profile_json(request: Request, profile: dict[str, Any]) -> dict[str, Any]:
    image = profile["profile_image"]
    return {**profile, "profile_image": absolute_url(request, image) if image else None}


def user_json(request: Request, session: Session, user: User) -> dict[str, Any]:
    """The ``/users/me/`` object, with the picture URL made absolute for other origins."""
    summary = accounts.user_summary(session, user)
    return {**summary, "profile": _profile_json(request, summary["profile"])}


def _admin_user_json(user: User) -> dict[str, Any]:
    shown = values_of(user, ("id", "email", "username", "first_name", "last_name", "role", "is_active"))
    return AdminUserOut(**shown, date_joined=user.created_at).model_dump(mode="json")


# --- registration and own account ----------------------------------------------------------------


@router.post(
    "/users/register/",
    response_model=UserOut,
    status_code=201,
    responses={400: AUTH_ERRORS[400]},
    summary="Register a customer (any bearer header is ignored)",
)
@declares(429)
@takes_turns
async def register(body: RegisterIn, request: Request):
    data, client = body.model_dump(exclude_unset=True), client_address(request)
    started = await in_turn(lambda: _start_registration(data, client))
    password_hash = await off_turn(lambda: hash_password(started.password))  # argon2: no turn held
    return await in_turn(lambda: _registered(request, started, password_hash))


def _start_registration(data: dict[str, Any], client: str) -> accounts.Registration:
    with session_scope() as session:
        return accounts.start_registration(session, data, client=client)


def _registered(request: Request, started: accounts.Registration, password_hash: str) -> dict:
    with write_session() as session:
        user = accounts.finish_registration(session, started, password_hash)
        return user_json(request, session, user)


@router.get("/users/me/", response_model=UserOut, responses={401: AUTH_ERRORS[401]})
def me(request: Request, session: SessionDep, user: CurrentUser):
    return user_json(request, session, user)


@router.get("/users/users/{user_id}/", response_model=UserOut, responses=OWNER_ERRORS)
def read_user(user_id: str, request: Request, session: SessionDep, actor: CurrentUser):
    return user_json(request, session, accounts.get_user(session, actor, user_id))


@router.patch(
    "/users/users/{user_id}/",
    response_model=UserOut,
    responses=OWNER_ERRORS,
    summary="Change your account (admins: anyone's); role is ignored",
)
@declares(429)  # the current password tried too often, or too many new emails and usernames
@takes_turns
async def update_user(user_id: str, body: UserUpdateIn, request: Request, actor: CurrentUser):
    changes = body.model_dump(exclude_unset=True)
    # Without a current password there is nothing to count or hash: one step, one write.
    pending = await in_turn(lambda: _count_check(actor, user_id, changes)) if changes.get("current_password") else None
    prepared = await off_turn(lambda: accounts.prepare_change(pending, changes)) if pending else None  # argon2
    return await in_turn(lambda: _updated(request, actor, user_id, changes, prepared))


def _count_check(actor: User, user_id: str, changes: dict[str, Any]):
    with write_session() as session:  # committed at once: the count outlives a refusal
        return accounts.count_change_check(session, actor, user_id, changes)


def _updated(request: Request, actor: User, user_id: str, changes: dict[str, Any], prepared) -> dict:
    with write_session() as session:
        user = accounts.update_user(session, actor, user_id, changes, prepared)
        return user_json(request, session, user)


# --- profile -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfilePayload:
    bio: str | None | EllipsisType = ...
    website: str | None | EllipsisType = ...
    image: bytes | None = None


def _too_large() -> ValidationFailed:
    mb = get_settings().max_image_bytes // (1024 * 1024)
    message = f"Image too large: at most {mb} MB."
    return ValidationFailed(message, fields={"profile_image": [message]})


async def _form_payload(request: Request) -> ProfilePayload:
    limit = get_settings().max_image_bytes
    declared = request.headers.get("content-length", "")
    # Refuse an oversized upload before spooling it (the form fields need little room).
    if declared.isascii() and declared.isdigit() and int(declared) > limit + 64 * 1024:
        raise _too_large()
    async with request.form(max_files=1, max_fields=10) as form:
        values: dict[str, Any] = {}
        for name in ("bio", "website"):
            value = form.get(name)
            if isinstance(value, UploadFile):
                raise ValidationFailed(accounts.NOT_TEXT, fields={name: [accounts.NOT_TEXT]})
            if value is not None:
                values[name] = value
        upload = form.get("profile_image")
        image = None
        if isinstance(upload, UploadFile):
            image = await upload.read(limit + 1)
            if len(image) > limit:
                raise _too_large()
        elif upload:
            message = "No file was submitted. Check the encoding type on the form."
            raise ValidationFailed(message, fields={"profile_image": [message]})
    return ProfilePayload(**values, image=image)


async def profile_payload(request: Request) -> ProfilePayload:
    """A JSON ``{bio, website}`` body, or a multipart / urlencoded form that may carry ``profile_image``."""
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        return await _form_payload(request)
    data = await request.json()  # the bounded parser: see api.bodies
    try:
        body = ProfileIn.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None
    return ProfilePayload(**body.model_dump(exclude_unset=True))


_PROFILE_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": ProfileIn.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "bio": {"type": "string"},
                        "website": {"type": "string"},
                        "profile_image": {
                            "type": "string",
                            "format": "binary",
                            "description": "PNG, JPEG, GIF or WebP, at most 5 MB",
                        },
                    },
                }
            },
        },
    }
}


@router.get("/users/profiles/{profile_id}/", response_model=ProfileOut, responses=OWNER_ERRORS)
def read_profile(profile_id: str, request: Request, session: SessionDep, actor: CurrentUser):
    profile = accounts.get_profile(session, actor, profile_id)
    return _profile_json(request, accounts.profile_dict(profile))


@router.patch(
    "/users/profiles/{profile_id}/",
    response_model=ProfileOut,
    responses=OWNER_ERRORS,
    openapi_extra=_PROFILE_BODY,
    summary="Change your profile: JSON {bio, website} or multipart with profile_image",
)
@declares(503)
@body_limit(image_body_limit)
def update_profile(
    profile_id: str,
    request: Request,
    session: WriteSessionDep,
    actor: CurrentUser,
    payload: Annotated[ProfilePayload, Depends(profile_payload)],
):
    profile = accounts.update_profile(
        session, actor, profile_id, bio=payload.bio, website=payload.website, image=payload.image
    )
    return _profile_json(request, accounts.profile_dict(profile))


# --- addresses -----------------------------------------------------------------------------------


@router.get("/users/addresses/", response_model=Page[AddressOut], responses=AUTH_ERRORS)
@paginated
def list_addresses(request: Request, session: SessionDep, actor: CurrentUser):
    page = page_request(request, default_size=LIST_PAGE_SIZE)
    addresses = accounts.list_addresses(session, actor)
    chosen = addresses[page.offset : page.offset + page.page_size]
    return build_page(request, page, len(addresses), [accounts.address_dict(a) for a in chosen])


@router.post("/users/addresses/", response_model=AddressOut, status_code=201, responses=AUTH_ERRORS)
def add_address(body: AddressCreateIn, session: WriteSessionDep, actor: CurrentUser):
    return accounts.address_dict(accounts.add_address(session, actor, body.model_dump(exclude_unset=True)))


@router.get("/users/addresses/{address_id}/", response_model=AddressOut, responses=OWNER_ERRORS)
def read_address(address_id: str, session: SessionDep, actor: CurrentUser):
    return accounts.address_dict(accounts.get_address(session, actor, address_id))


@router.patch("/users/addresses/{address_id}/", response_model=AddressOut, responses=OWNER_ERRORS)
def update_address(address_id: str, body: AddressIn, session: WriteSessionDep, actor: CurrentUser):
    changes = body.model_dump(exclude_unset=True)
    return accounts.address_dict(accounts.update_address(session, actor, address_id, changes))


@router.delete("/users/addresses/{address_id}/", status_code=204, response_class=Response, responses=OWNER_ERRORS)
def delete_address(address_id: str, session: WriteSessionDep, actor: CurrentUser):
    accounts.delete_address(session, actor, address_id)
    return Response(status_code=204)


# --- admin -----------------------------------------------------------------------------------------


@router.get("/users/admin/users/", response_model=Page[AdminUserOut], responses=ADMIN_ERRORS)
@paginated
def admin_list_users(
    request: Request,
    session: SessionDep,
    actor: AdminUser,
    search: Annotated[str, Query(description="Email, username, first or last name (case-insensitive)")] = "",
    role: Annotated[str | None, Query(description="admin, seller, manager, customer or user")] = None,
):
    page = page_request(request, default_size=LIST_PAGE_SIZE)
    users, total = accounts.list_users(
        session, actor, search=search, role=role, offset=page.offset, limit=page.page_size
    )
    return build_page(request, page, total, [_admin_user_json(u) for u in users])


@router.patch(
    "/users/admin/users/{user_id}/",
    response_model=AdminUserOut,
    responses={**ADMIN_ERRORS, 404: OWNER_ERRORS[404]},
    summary="Change a user's role or deactivate the account (the last admin stays an active admin)",
)
def admin_change_role(user_id: str, body: RoleIn, session: WriteSessionDep, actor: AdminUser):
    if body.role is None and body.is_active is None:
        message = "Send a role, is_active, or both."
        raise ValidationFailed(message, fields={"role": [message]})
    user = None
    if body.role is not None:
        user = accounts.change_role(session, actor, user_id, body.role)
    if body.is_active is not None:
        user = accounts.set_active(session, actor, user_id, body.is_active)
    return _admin_user_json(user)
