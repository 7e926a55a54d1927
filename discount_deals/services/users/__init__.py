"""Users, profiles and addresses: registration, validation and the rules on who may change what.

- :mod:`.fields`: the field rules (account, profile, address) in the spec's words
- :mod:`.accounts`: registration, the command line's admin, reading and changing an account
- :mod:`.profiles`: a user's bio, website and picture
- :mod:`.addresses`: saved addresses and the default one
- :mod:`.admin`: the back office's user list, roles and (de)activation

Every function that acts for someone takes the acting ``actor: User`` and checks it itself: a
user may read and change only their own account, profile and addresses (someone else's id
answers "not found"), an admin may also change other accounts and manage roles.

Owns its transactions: ``accounts.register`` counts the attempt in a transaction of its own
(the count must outlive a refused registration). Everything else takes the caller's session.
"""

from .accounts import (
    RegistrationThrottled,
    add_user,
    create_or_promote_admin,
    full_name,
    count_change_check,
    finish_registration,
    get_user,
    prepare_change,
    register,
    start_registration,
    update_user,
    user_summary,
)
from .addresses import add_address, address_dict, addresses_of, delete_address, get_address, list_addresses
from .addresses import GHANA_REGIONS, add_ghana_address, ghana_address_fields, normalise_gps_address, place_name, update_address
from .admin import change_role, list_users, set_active
from .fields import (
    ACCOUNT_FIELDS,
    ADDRESS_MAX_LENGTHS,
    ADDRESS_REQUIRED,
    GENDERS,
    INVALID_EMAIL,
    INVALID_URL,
    MAX_ADDRESSES,
    MAX_LENGTHS,
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    NOT_TEXT,
    PROFILE_MAX_LENGTHS,
    REQUIRED_MESSAGES,
    ROLES,
    email_taken,
    is_closed,
    is_valid_email,
    normalize_email,
    password_problem,
    username_taken,
)
from .profiles import get_profile, profile_dict, profile_of, update_profile

__all__ = [
    "ACCOUNT_FIELDS",
    "ADDRESS_MAX_LENGTHS",
    "ADDRESS_REQUIRED",
    "GHANA_REGIONS",
    "GENDERS",
    "INVALID_EMAIL",
    "INVALID_URL",
    "MAX_ADDRESSES",
    "MAX_LENGTHS",
    "MAX_PASSWORD_LENGTH",
    "MIN_PASSWORD_LENGTH",
    "NOT_TEXT",
    "PROFILE_MAX_LENGTHS",
    "REQUIRED_MESSAGES",
    "ROLES",
    "RegistrationThrottled",
    "add_address",
    "add_ghana_address",
    "add_user",
    "address_dict",
    "addresses_of",
    "change_role",
    "create_or_promote_admin",
    "full_name",
    "delete_address",
    "email_taken",
    "get_address",
    "get_profile",
    "get_user",
    "ghana_address_fields",
    "is_closed",
    "is_valid_email",
    "list_addresses",
    "list_users",
    "normalise_gps_address",
    "place_name",
    "normalize_email",
    "password_problem",
    "profile_dict",
    "profile_of",
    "register",
    "set_active",
    "update_address",
    "update_profile",
    "update_user",
    "prepare_change",
    "count_change_check",
    "start_registration",
    "finish_registration",
    "user_summary",
    "username_taken",
]
