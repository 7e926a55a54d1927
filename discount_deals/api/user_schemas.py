"""The users API's request and response bodies (``api.users``).

Every request field is optional: the services give the spec's messages for missing or invalid
ones. The ``json_schema_extra`` hints document the rules in the OpenAPI description.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..services import users as accounts
from .schemas import documented


# --- response models ----------------------------------------------------------------------------


class ProfileOut(BaseModel):
    id: str
    bio: str | None
    website: str | None
    profile_image: str | None = Field(description="Absolute URL of the uploaded picture")


class AddressOut(BaseModel):
    id: str
    line1: str
    line2: str
    city: str
    state: str
    postal_code: str
    country: str
    is_default: bool


class UserOut(BaseModel):
    id: str
    email: str
    username: str
    first_name: str
    last_name: str
    phonenumber: str = Field(description="A Ghanaian number as typed in one word (0241234567); another "
                             "country's E.164 (+447911123456)")
    date_of_birth: str | None = Field(description="YYYY-MM-DD")
    gender: str
    role: str
    profile: ProfileOut
    addresses: list[AddressOut] = Field(description="The default first, then oldest first")


class AdminUserOut(BaseModel):
    id: str
    email: str
    username: str
    first_name: str
    last_name: str
    role: str
    is_active: bool
    date_joined: datetime


# --- request models (every field optional: the services give the spec's messages) ---------------


NAME = {"type": "string", "minLength": 1, "maxLength": 150}
EMAIL = {"type": "string", "format": "email", "maxLength": 254}
USERNAME = {"type": "string", "minLength": 1, "maxLength": 150, "pattern": r"^[\w.@+-]+$"}
PASSWORD = {"type": "string", "minLength": 6, "maxLength": 256}
PHONE = {"type": "string", "maxLength": 32, "pattern": r"^\+?[\d\s().-]{7,}$",
         "description": "A valid phone number: a Ghanaian one in any usual spelling (024 123 4567, +233 24 123 4567, "
         "233241234567), another country's with its + code; stored E.164"}
BIRTH_DATE = {"type": "string", "format": "date", "description": "YYYY-MM-DD, after 1900-01-01 and in the past"}
GENDER = {"type": "string", "enum": ["male", "female", "other"]}
NO_CONTROL = "Text fields refuse control characters other than tab and newline."

# An account's fields as registration and the profile update both take them (optional: see above).
NameIn = Annotated[str | None, Field(json_schema_extra=documented(**NAME))]
EmailIn = Annotated[str | None, Field(json_schema_extra=documented(**EMAIL))]
UsernameIn = Annotated[str | None, Field(json_schema_extra=documented(**USERNAME))]
PhoneIn = Annotated[str | None, Field(json_schema_extra=documented(**PHONE))]
BirthDateIn = Annotated[str | None, Field(json_schema_extra=documented(**BIRTH_DATE))]
GenderIn = Annotated[str | None, Field(json_schema_extra=documented(**GENDER))]


def _text(limit: int, minimum: int = 0) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit, **({"minLength": minimum} if minimum else {})}


class RegisterIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            "required": ["first_name", "last_name", "username", "email", "password", "phonenumber",
                         "date_of_birth", "gender"],
            "description": NO_CONTROL,
        },
    )

    first_name: NameIn = None
    last_name: NameIn = None
    username: UsernameIn = None
    email: EmailIn = None
    password: str | None = Field(None, json_schema_extra=documented(**PASSWORD))
    phonenumber: PhoneIn = None
    date_of_birth: BirthDateIn = None
    gender: GenderIn = None
    role: Any = Field(None, description="Ignored: every registration is a customer")
    metadata: Any = Field(None, description="Ignored")


class ProfileIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"description": NO_CONTROL})

    bio: str | None = Field(
        None, json_schema_extra=documented(type=["string", "null"], maxLength=2000, description="Blank becomes null")
    )
    website: str | None = Field(
        None,
        json_schema_extra=documented(
            type=["string", "null"], maxLength=500, description="An http(s) URL; blank becomes null"
        ),
    )


class UserUpdateIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"description": NO_CONTROL})

    email: EmailIn = None
    username: UsernameIn = None
    first_name: NameIn = None
    last_name: NameIn = None
    phonenumber: PhoneIn = None
    date_of_birth: BirthDateIn = None
    gender: GenderIn = None
    profile: ProfileIn | None = None
    password: str | None = Field(
        None,
        json_schema_extra=documented(
            **PASSWORD, description="A new password, sent with current_password; every token of the user "
            "stops working (log in again) and the owner is told"
        ),
    )
    current_password: str | None = Field(
        None, json_schema_extra=documented(type="string", maxLength=256,
                                           description="Required with password: the account's current password")
    )
    role: Any = Field(None, description="Ignored here: admins change roles at /users/admin/users/{id}/")


class AddressIn(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"description": NO_CONTROL})

    line1: str | None = Field(None, json_schema_extra=documented(**_text(255, 1)))
    line2: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], maxLength=255))
    city: str | None = Field(None, json_schema_extra=documented(**_text(120, 1)))
    state: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], maxLength=120))
    postal_code: str | None = Field(None, json_schema_extra=documented(type=["string", "null"], maxLength=32))
    country: str | None = Field(None, json_schema_extra=documented(**_text(120, 1)))
    is_default: bool | None = None


class AddressCreateIn(AddressIn):
    model_config = ConfigDict(
        extra="ignore", json_schema_extra={"required": ["line1", "city", "country"], "description": NO_CONTROL}
    )


class RoleIn(BaseModel):
    role: str | None = Field(None, json_schema_extra=documented(type="string", enum=list(accounts.ROLES)))
    is_active: bool | None = Field(None, description="false deactivates the account (it can no longer log in)")
