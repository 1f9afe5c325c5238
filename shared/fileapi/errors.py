"""The error hierarchy: one class per error code of the API contract.

Converters, metering and routes raise these; exactly one module,
`fileapi.web.errors`, turns them into ApiError JSON responses.
"""

from __future__ import annotations


class ApiError(Exception):
    """Base of every error the API answers with.

    :param message: human-readable text for the client; never holds request content or secrets.
    :param headers: extra response headers (e.g. Retry-After).
    :param upgrade_url: optional link shown to the client (quota and plan errors).
    """

    code = "internal_error"
    http_status = 500

    def __init__(
        self,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        upgrade_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.headers = dict(headers or {})
        self.upgrade_url = upgrade_url

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its class and attributes (a conversion worker sends its refusal back this way), whatever
        the subclass's constructor takes."""
        return (_rebuilt, (type(self), self.message, dict(self.__dict__)))


def _rebuilt(cls: type[ApiError], message: str, attributes: dict[str, object]) -> ApiError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(attributes)
    return error


class Unauthorized(ApiError):
    code = "unauthorized"
    http_status = 401


class SubscriptionInactive(ApiError):
    code = "subscription_inactive"
    http_status = 403


class _RetryLater(ApiError):
    """A refusal that says when to come back: `retry_after_seconds` (whole seconds, >= 1) goes to Retry-After,
    beside any other `headers` (the metering headers)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after_seconds: int,
        upgrade_url: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.retry_after_seconds = max(1, int(retry_after_seconds))
        super().__init__(
            message,
            headers={**(headers or {}), "Retry-After": str(self.retry_after_seconds)},
            upgrade_url=upgrade_url,
        )


class QuotaExceeded(_RetryLater):
    """The month's quota is used up; Retry-After is the seconds until the 1st of next month, 00:00 UTC."""

    code = "quota_exceeded"
    http_status = 429


class RateLimited(_RetryLater):
    """Per-key rate limit hit; Retry-After is the seconds until the bucket has a token again."""

    code = "rate_limited"
    http_status = 429


class InvalidInput(ApiError):
    code = "invalid_input"
    http_status = 400


class InvalidOption(InvalidInput):
    """A 400 about an option's value (a page range, a pattern, an area), not about the body: the advice on how
    to send a file (fileapi.web.errors.BODY_HINT) is not added to it."""


class WrongPassword(ApiError):
    """An encrypted PDF that the password given does not open (documented addition: 400 wrong_password)."""

    code = "wrong_password"
    http_status = 400


class UnsupportedFormat(ApiError):
    code = "unsupported_format"
    http_status = 400


class TooLarge(ApiError):
    code = "too_large"
    http_status = 413


class OutOfTime(TooLarge):
    """A conversion stopped at its time limit (413 too_large): its own class, so that a synchronous request's
    answer can name the operation, which has a longer one (fileapi.web.conversions)."""


class ConversionFailed(ApiError):
    code = "conversion_failed"
    http_status = 500


class InternalError(ApiError):
    code = "internal_error"
    http_status = 500


# Documented additions to the contract's list (docs/api.md, OpenAPI).


class NotFound(ApiError):
    """No route at this path (documented addition: 404 not_found)."""

    code = "not_found"
    http_status = 404


class MethodNotAllowed(ApiError):
    """The path exists but not with this method (documented addition: 405 method_not_allowed)."""

    code = "method_not_allowed"
    http_status = 405


class ServiceUnavailable(ApiError):
    """The metering store could not be reached or throttled us; the request failed closed
    and was not counted (documented addition: 503 service_unavailable, with Retry-After)."""

    code = "service_unavailable"
    http_status = 503

    def __init__(self, message: str, *, retry_after_seconds: int = 1) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after_seconds))})


class Unprocessable(ApiError):
    """The converter stopped on the input without an answer (a crash or a library giving up in a conversion
    worker): the file is damaged or made to break it (documented addition: 422 unprocessable_input)."""

    code = "unprocessable_input"
    http_status = 422


class RequestTimeout(ApiError):
    """The request's body did not arrive in time on a server that reads it itself, `fileapi serve` (documented
    addition: 408 request_timeout; the connection is closed)."""

    code = "request_timeout"
    http_status = 408


class IdempotencyInFlight(ApiError):
    """A request with the same Idempotency-Key is still being answered (documented addition: 409
    idempotency_in_flight, with Retry-After)."""

    code = "idempotency_in_flight"
    http_status = 409

    def __init__(self, message: str, *, retry_after_seconds: int = 1) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after_seconds))})


class IdempotencyKeyReused(ApiError):
    """The Idempotency-Key was used with a different request (documented addition: 422 idempotency_key_reused)."""

    code = "idempotency_key_reused"
    http_status = 422


class InputUnreachable(ApiError):
    """An input named by URL could not be fetched: no connection, an answer other than 2xx, too many redirects,
    or not all of it within the total time (documented addition: 422 input_unreachable)."""

    code = "input_unreachable"
    http_status = 422


class InputTooLarge(ApiError):
    """An input named by URL is larger than the cap, said by its Content-Length or found while it streamed
    (documented addition: 413 input_too_large)."""

    code = "input_too_large"
    http_status = 413


class OutputFailed(ApiError):
    """A result could not be PUT to the URL given for it after the retries: a per-file result of an operation,
    never an answer to a request (documented addition: 502 output_failed)."""

    code = "output_failed"
    http_status = 502


ALL_ERRORS: tuple[type[ApiError], ...] = (
    Unauthorized,
    SubscriptionInactive,
    QuotaExceeded,
    RateLimited,
    InvalidInput,
    WrongPassword,
    UnsupportedFormat,
    TooLarge,
    ConversionFailed,
    InternalError,
    NotFound,
    MethodNotAllowed,
    ServiceUnavailable,
    Unprocessable,
    RequestTimeout,
    IdempotencyInFlight,
    IdempotencyKeyReused,
    InputUnreachable,
    InputTooLarge,
    OutputFailed,
)
# Raised only where a request names URLs to fetch from or PUT to (pipelines): not listed among every endpoint's
# error answers (fileapi.web.docs), only where such a route declares them.
URL_ERRORS: tuple[type[ApiError], ...] = (InputUnreachable, InputTooLarge, OutputFailed)
