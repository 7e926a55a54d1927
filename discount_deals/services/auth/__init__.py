"""Who is asking: passwords, tokens, logging in, and a forgotten password.

- :mod:`.tokens`: the JWTs (access, refresh in rotating families, the device's), their
  revocation ("log out everywhere", a password change), and reading a caller from a token
- :mod:`.passwords`: hashing (argon2id) and checking a password
- :mod:`.login`: logging in, with its throttles and the locked account's notice
- :mod:`.password_reset`: the reset by email link or SMS code (owns its transactions: see its
  docstring)

The tokens' and passwords' functions are named here as ``services.auth.<name>``, as before
they had a package; logging in and the reset are their modules (``services.auth.login``).
"""

from .passwords import hash_password, password_needs_rehash, verify_password
from .tokens import (
    TokenPair,
    TokenReused,
    create_access_token,
    decode_token,
    device_token,
    issue_tokens,
    log_out_everywhere,
    refresh_access_token,
    refresh_tokens,
    retire_password_resets,
    revoke_all_tokens,
    revoke_refresh_token,
    set_password,
    token_is_valid,
    user_for_access_token,
)

__all__ = [
    "TokenPair",
    "TokenReused",
    "create_access_token",
    "decode_token",
    "device_token",
    "hash_password",
    "issue_tokens",
    "log_out_everywhere",
    "password_needs_rehash",
    "refresh_access_token",
    "refresh_tokens",
    "retire_password_resets",
    "revoke_all_tokens",
    "revoke_refresh_token",
    "set_password",
    "token_is_valid",
    "user_for_access_token",
    "verify_password",
]
