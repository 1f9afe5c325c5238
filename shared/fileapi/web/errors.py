"""The one mapping from errors to HTTP: ApiError JSON for every failure.

Our own `ApiError`s, FastAPI's validation errors, Starlette's 404/405 and anything
unexpected all leave through `error_response`.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Send

from fileapi.errors import (
    ApiError,
    InternalError,
    InvalidInput,
    InvalidOption,
    MethodNotAllowed,
    NotFound,
    ServiceUnavailable,
    TooLarge,
    UnsupportedFormat,
)
from fileapi.telemetry import logger

if TYPE_CHECKING:  # FastAPI is imported by the apps that use it, not by this module (the Health function has none)
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError

# What to send instead, said when a body is not what the route takes (fileapi.web.request_bodies).
SEND_JSON = "send JSON with -H 'Content-Type: application/json' --data '{...}'"
BODY_HINT = "send the file as raw bytes (--data-binary @file) or multipart (-F file=@file)"
# Set in the scope of a bytes-in request whose body is labelled as a form or JSON: its 400s end with BODY_HINT.
BODY_HINT_KEY = "fileapi.body_hint"

# Parameter values are echoed in validation messages only from these places, and only short ones.
_ECHOED_LOCATIONS = frozenset({"query", "path"})
_MAX_ECHO_CHARS = 40


# The error page (shared/fileapi/errors.md, served by the Health function) has a section per code.
ERROR_DOCS_PATH = "/docs/errors"


def error_body(exc: ApiError) -> dict[str, str]:
    """The ApiError JSON object of `exc`, with the link to its code's section of the error page."""
    body = {"error": exc.code, "message": exc.message}
    if exc.upgrade_url:
        body["upgrade_url"] = exc.upgrade_url
    body["docs_url"] = f"{ERROR_DOCS_PATH}#{exc.code}"
    return body


def error_response(exc: ApiError) -> Response:
    """The HTTP response for `exc`: its status, ApiError JSON and its headers."""
    return JSONResponse(error_body(exc), status_code=exc.http_status, headers=exc.headers)


# pydantic's error type for a name a model does not know; fileapi.models.ClosedModel and fileapi.web.binding put
# the names that are known in its ctx["known"] (and binding the protocol's in ctx["protocol"]); this module
# imports no pydantic: the Health function has none.
UNKNOWN_NAME = "extra_forbidden"


# Query parameters that name the output format: a value outside their list is a format this
# endpoint does not write (unsupported_format), not a malformed request.
_FORMAT_PARAMETERS = frozenset({"to", "format"})


def validation_error(exc: RequestValidationError) -> InvalidInput | UnsupportedFormat:
    """An InvalidInput that names each bad parameter and what is wrong with it; UnsupportedFormat
    when the only problem is an output format (`to`, `format`) the endpoint does not write."""
    errors = list(exc.errors())
    whole_body = next(filter(None, map(_describe_whole_body, errors)), None)
    if whole_body is not None:
        return InvalidInput(whole_body)
    problems = [_describe(error) for error in errors]
    if errors and all(_is_unwritten_format(error) for error in errors):
        return UnsupportedFormat("; ".join(problems))
    return InvalidInput("; ".join(problems) or "invalid request")


def _is_unwritten_format(error: dict[str, Any]) -> bool:
    location = tuple(error.get("loc", ()))
    return (
        error.get("type") == "enum"
        and len(location) == 2
        and location[0] == "query"
        and location[1] in _FORMAT_PARAMETERS
    )


def _describe_whole_body(error: dict[str, Any]) -> str | None:
    """What is wrong with a JSON body as a whole (not JSON, absent, not an object); None for other errors."""
    kind, location = error.get("type"), tuple(error.get("loc", ()))
    if kind == "json_invalid":
        reason = (error.get("ctx") or {}).get("error", "JSON decode error")
        where = f" at character {location[1]}" if len(location) > 1 else ""
        return f"the body is not valid JSON ({reason}{where}); {SEND_JSON}"
    if location != ("body",):
        return None
    if kind == "missing":
        return f"the body is empty; {SEND_JSON}"
    return f"the body must be a JSON object; {SEND_JSON}"


# Validation errors that say an option is absent (pydantic's, and the options models' own for a group).
_ABSENT = frozenset({"missing", "missing_option"})


def with_body_hint(exc: ApiError, scope: MutableMapping[str, Any], *, cause: BaseException | None = None) -> ApiError:
    """`exc` with BODY_HINT at the end of its message when the request's scope asks for it and it is a 400
    about the body, or about options that are only missing (`curl -d width=100` sends them as the body); not
    about a given parameter's value.

    :param cause: the RequestValidationError `exc` words, if any (default: the one MeteredRoute raised it from).
    """
    from fastapi.exceptions import RequestValidationError  # loaded already: called by a FastAPI app's handler

    hint = scope.get(BODY_HINT_KEY)
    context = cause if cause is not None else exc.__context__
    about_parameters = isinstance(context, RequestValidationError) and not all(
        error.get("type") in _ABSENT for error in context.errors()
    )
    about_parameters = about_parameters or isinstance(exc, InvalidOption)
    if hint and exc.http_status == 400 and not about_parameters and not exc.message.endswith(hint):
        exc.message = f"{exc.message}; {hint}"
    return exc


def _describe(error: dict[str, Any]) -> str:
    location = tuple(error.get("loc", ()))
    where = location[0] if location else "request"
    # inputs[1].url, as the docs and the other messages write a place in a JSON body (pydantic: inputs.1.url)
    name = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location[1:]).lstrip(".") or where
    if len(location) == 1 and where in _ECHOED_LOCATIONS:  # about the options together (a model's validator)
        return str(error.get("msg", "invalid options"))
    if error.get("type") == UNKNOWN_NAME:
        context = error.get("ctx") or {}
        known = None if context.get("known") is None else [str(each) for each in context["known"]]
        protocol = [str(each) for each in context.get("protocol", ())]
        kind = "parameter" if where in _ECHOED_LOCATIONS else "field"
        from fileapi.unknown_names import unknown_name  # only when a name is unknown: not at cold start

        return unknown_name(name, known, kind=kind, protocol=protocol)
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")  # pydantic's prefix to a validator's
    text = f"{name}: {message}"
    value = error.get("input")
    if where in _ECHOED_LOCATIONS and isinstance(value, str) and len(value) <= _MAX_ECHO_CHARS:
        text += f" (got {value!r})"
    return text


def http_error(exc: StarletteHTTPException) -> ApiError:
    """Starlette's own HTTP errors as ApiErrors."""
    if exc.status_code == 404:
        return NotFound("no such endpoint; see /openapi.json for the API's paths")
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        error = MethodNotAllowed(f"method not allowed here; allowed: {allowed}" if allowed else "method not allowed")
        error.headers.update(exc.headers or {})
        return error
    if exc.status_code == 413:
        return TooLarge(str(exc.detail))
    if 400 <= exc.status_code < 500:
        return InvalidInput(str(exc.detail))
    return InternalError("unexpected failure")


def as_api_error(exc: BaseException) -> ApiError | None:
    """The ApiError an exception is answered with (None: not ours to answer, e.g. a cancellation or a fault,
    answered 500 by the catch-all)."""
    from fastapi.exceptions import RequestValidationError  # raised by FastAPI apps only (Health has none)

    from fileapi.metering.storage import StoreUnavailable

    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, StoreUnavailable) or _is_unreachable(exc):  # a store of uploads, operations, keys, files
        return ServiceUnavailable("a store of this service could not be reached; nothing was charged: retry")
    if isinstance(exc, RequestValidationError):
        return validation_error(exc)
    if isinstance(exc, StarletteHTTPException):
        return http_error(exc)
    return None


def _is_unreachable(exc: BaseException) -> bool:
    """Whether `exc` is botocore failing to reach S3 or SQS (a connection or a timeout, not an answer)."""
    botocore = sys.modules.get("botocore.exceptions")  # loaded by whoever made the call
    return botocore is not None and isinstance(exc, botocore.BotoCoreError)


def unexpected_error(exc: BaseException) -> InternalError:
    """Log an unexpected exception by type and frames only (its message may hold request content)."""
    frames = [f"{frame.filename}:{frame.lineno} {frame.name}" for frame in traceback.extract_tb(exc.__traceback__)]
    logger.error("unexpected error", extra={"exception_type": type(exc).__name__, "frames": frames[-8:]})
    return InternalError("unexpected failure; it has been logged without the request's content")


class TrackedSend:
    """`send`, noting whether the response has started (after which no error can be answered)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)


def install_error_handlers(app: FastAPI) -> None:
    """Route every error of `app` through `error_response` (with the front door's catch-all outside it)."""
    from fastapi.exceptions import RequestValidationError

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(with_body_hint(exc, request.scope))

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(with_body_hint(validation_error(exc), request.scope, cause=exc))

    async def on_http_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return error_response(http_error(exc))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
