"""One exception class per ApiError code (generated from the OpenAPI document's ApiErrorCode)."""

from fileapi_client._core import ApiError
from fileapi_client._generated import (
    ERRORS,
    ConversionFailed,
    InternalError,
    InvalidInput,
    MethodNotAllowed,
    NotFound,
    QuotaExceeded,
    RateLimited,
    ServiceUnavailable,
    SubscriptionInactive,
    TooLarge,
    Unauthorized,
    UnsupportedFormat,
)

__all__ = [
    "ERRORS",
    "ApiError",
    "ConversionFailed",
    "InternalError",
    "InvalidInput",
    "MethodNotAllowed",
    "NotFound",
    "QuotaExceeded",
    "RateLimited",
    "ServiceUnavailable",
    "SubscriptionInactive",
    "TooLarge",
    "Unauthorized",
    "UnsupportedFormat",
]
