"""The rules of the shop. The API and the Reflex UI are thin faces over these modules."""


class ServiceError(Exception):
    """A rule refused the request. ``status`` is the HTTP status the API answers with.

    ``fields`` maps field names to lists of messages for validation errors. ``code`` names the
    refusal for faces that must react to one in particular (``"no_address"``): they branch on
    the code, never on the sentence.
    """

    status = 400

    def __init__(
        self,
        detail: str,
        *,
        fields: dict[str, list[str]] | None = None,
        status: int | None = None,
        code: str = "",
    ):
        super().__init__(detail)
        self.detail = detail
        self.fields = fields or {}
        self.code = code
        if status is not None:
            self.status = status


class ValidationFailed(ServiceError):
    status = 400


class NotFound(ServiceError):
    status = 404

    def __init__(self, detail: str = "Not found.", *, code: str = ""):
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
