"""The rules of the shop. The API and the Reflex UI are thin faces over these modules.

Transactions belong to the faces. A service takes the caller's ``Session`` and never commits
or rolls it back: it may flush, and it may use a savepoint (``session.begin_nested()``) to undo
a part of its work inside the caller's transaction. The faces own the unit of work: the API
routes through ``api.deps`` (``SessionDep``, ``WriteSessionDep``), the Reflex states, the
command line and the timer through ``db.session_scope`` / ``db.write_session``, which commit
when the block succeeds and roll back when it raises (but see :attr:`ServiceError.keeps_writes`).

A few services must open transactions of their own: around a call to a payment provider (no
transaction may stay open across the network), where a count must outlive the refusal it causes
(login and registration throttles), where a read path brings stored prices up to date, and for
the timer's per-order work. Each says so in a docstring paragraph starting "Owns its
transactions:" that gives the reason, takes no session it would commit, and its module docstring
names it under the same heading. ``tests/unit/test_transaction_ownership.py`` holds every
module of this package to that.
"""

from .error_codes import ErrorCode


class ServiceError(Exception):
    """A rule refused the request. ``status`` is the HTTP status the API answers with.

    ``fields`` maps field names to lists of messages for validation errors. ``code`` names the
    refusal for faces that must react to one in particular (``ErrorCode.NO_ADDRESS``): they
    branch on the code, never on the sentence; every code is an :class:`ErrorCode` member. ``expose_code``: the API's error body carries the code too
    (``{"detail": ..., "code": "not_paid"}``); off by default, so every other body stays
    ``{"detail": ...}`` as the original client and its tests compare it whole.
    """

    status = 400
    #: True for a refusal whose writes are its record (the revoked family of a stolen refresh
    #: token): the face's unit of work commits what the service flushed, then passes the error
    #: on. Any other error rolls the unit of work back.
    keeps_writes = False

    def __init__(
        self,
        detail: str,
        *,
        fields: dict[str, list[str]] | None = None,
        status: int | None = None,
        code: ErrorCode | str = "",  # an ErrorCode; "" for none (test_error_codes holds literals out)
        expose_code: bool = False,
    ):
        super().__init__(detail)
        self.detail = detail
        self.fields = fields or {}
        self.code = code
        self.expose_code = expose_code and bool(code)
        if status is not None:
            self.status = status


class ValidationFailed(ServiceError):
    status = 400


class NotFound(ServiceError):
    status = 404

    def __init__(self, detail: str = "Not found.", *, code: ErrorCode | str = ""):
        super().__init__(detail, code=code)


class PermissionDenied(ServiceError):
    status = 403

    def __init__(self, detail: str = "You do not have permission to perform this action."):
        super().__init__(detail)


class NotAuthenticated(ServiceError):
    status = 401

    def __init__(self, detail: str = "Authentication credentials were not provided."):
        super().__init__(detail)


class Conflict(ServiceError):
    status = 409
