"""What every operation shares: inputs, requests, results, errors and the retry rule."""

from __future__ import annotations

import base64
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, Literal, TypeVar
from urllib.parse import quote

import httpx

__version__ = "0.1.0"

DEFAULT_BASE_URL = "http://127.0.0.1:3000"
USER_AGENT = f"fileapi-client-python/{__version__}"

# bytes, a path (str or os.PathLike), a binary file object opened for reading, or a stream of byte chunks
# (an iterable such as a generator or an HTTP response's iter_bytes()).
FileInput = bytes | bytearray | memoryview | str | os.PathLike[str] | IO[bytes] | Iterable[bytes]
T = TypeVar("T")


@dataclass(frozen=True)
class Operation:
    """How one API operation is called (the generated table holds one per operation)."""

    id: str
    method: str
    path: str
    auth: bool
    body: Literal["none", "file", "text", "json", "fields", "multipart"]
    content_type: str | None
    query: tuple[str, ...]
    fields: tuple[str, ...]
    files: tuple[str, ...]
    result: Literal["json", "text", "bytes", "media", "redirect", "empty"]
    # Parameters in the path (`/v1/operations/{operation_id}`), given first.
    path_params: tuple[str, ...] = ()
    # Keys of the JSON answer that hold dots (a favicon set's file names): one step of a result's field path.
    dotted_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result(Generic[T]):
    """An operation's answer: `data` (typed per operation) and the response's metering headers."""

    data: T
    status: int
    content_type: str
    headers: Mapping[str, str] = field(repr=False)

    @property
    def quota_remaining(self) -> int | None:
        """X-Quota-Remaining: requests left this UTC month after this one."""
        return _int_header(self.headers, "x-quota-remaining")

    @property
    def rate_limit_limit(self) -> int | None:
        """RateLimit-Limit: the key's burst capacity."""
        return _int_header(self.headers, "ratelimit-limit")

    @property
    def rate_limit_remaining(self) -> int | None:
        """RateLimit-Remaining: requests that may be sent at once now."""
        return _int_header(self.headers, "ratelimit-remaining")

    @property
    def rate_limit_policy(self) -> str | None:
        return self.headers.get("ratelimit-policy")

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write `data` (bytes, or text as UTF-8) to `path` and return the path."""
        target = Path(path)
        if isinstance(self.data, bytes):
            target.write_bytes(self.data)
        elif isinstance(self.data, str):
            target.write_text(self.data, encoding="utf-8")
        else:
            target.write_text(json.dumps(self.data, ensure_ascii=False, indent=2), encoding="utf-8")
        return target


class ApiError(Exception):
    """An ApiError answer. Subclasses, one per code, are in `fileapi_client.errors`."""

    code: str = "api_error"
    # Set when the error is an operation's (it failed or was cancelled): the operation's id.
    operation_id: str | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
        upgrade_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        if code is not None:
            self.code = code
        self.headers: Mapping[str, str] = headers or {}
        self.upgrade_url = upgrade_url

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"


class RateLimitedBase(ApiError):
    """429 rate_limited: `retry_after` is the server's Retry-After in seconds."""

    @property
    def retry_after(self) -> float | None:
        return _float_header(self.headers, "retry-after")


@dataclass(frozen=True)
class RetryPolicy:
    """Retry on 429 rate_limited, waiting what Retry-After says (never on quota_exceeded).

    At most `max_retries` times, and only when the wait is at most `max_wait` seconds; 0 retries
    (or `enabled=False`) switches it off.
    """

    enabled: bool = True
    max_retries: int = 3
    max_wait: float = 60.0

    def delay(self, error: ApiError, attempt: int) -> float | None:
        """Seconds to wait before retrying after `error` on try `attempt` (0-based), or None."""
        if not (self.enabled and isinstance(error, RateLimitedBase) and attempt < self.max_retries):
            return None
        wait = error.retry_after if error.retry_after is not None else 1.0
        return wait if 0 <= wait <= self.max_wait else None


@dataclass(frozen=True)
class PreparedRequest:
    method: str
    path: str
    auth: bool
    params: dict[str, str]
    headers: dict[str, str]
    content: bytes | None = None
    files: list[tuple[str, tuple[str, bytes, str]]] | None = None


def read_file(value: Any, name: str) -> bytes:
    """The bytes of a file input: bytes-like, a path, a binary file object, or an iterable of byte chunks."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str | os.PathLike):
        return Path(value).read_bytes()
    if hasattr(value, "read"):
        data = value.read()
        if isinstance(data, bytes):
            return data
    elif isinstance(value, Iterable):
        chunks = list(value)
        if all(isinstance(chunk, bytes | bytearray | memoryview) for chunk in chunks):
            return b"".join(chunks)
    raise TypeError(
        f"{name}: expected bytes, a path, a binary file object or an iterable of bytes, got {type(value).__name__}"
    )


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(getattr(value, "value", value))


def _json_value(operation: Operation, name: str, value: Any) -> Any:
    if name not in operation.files:
        return value
    if isinstance(value, list | tuple):
        return [base64.b64encode(read_file(item, f"{name}[{index}]")).decode() for index, item in enumerate(value)]
    return base64.b64encode(read_file(value, name)).decode()


def _text(value: Any, name: str) -> bytes:
    """Text as UTF-8; bytes-like values and file objects as they are (a str is the text, not a path)."""
    return value.encode("utf-8") if isinstance(value, str) else read_file(value, name)


def path_of(operation: Operation, arguments: Mapping[str, Any]) -> str:
    """The operation's path with its path parameters filled in (URL-quoted).

    :raises ValueError: a path parameter that is empty.
    """
    path = operation.path
    for name in operation.path_params:
        value = str(arguments.get(name) or "")
        if not value:
            raise ValueError(f"{name} is required")
        path = path.replace("{" + name + "}", quote(value, safe=""))
    return path


def query_params(operation: Operation, arguments: Mapping[str, Any]) -> dict[str, str]:
    """The query parameters of one call (the ones given)."""
    return {name: _query_value(arguments[name]) for name in operation.query if arguments.get(name) is not None}


def request_body(operation: Operation, arguments: Mapping[str, Any]) -> bytes | None:
    """The body of a call with a text, JSON or fields body (None for the other kinds)."""
    content: bytes | None = None
    if operation.body == "text":
        content = _text(arguments["text"], "text")
    elif operation.body == "json":
        data = arguments["data"]
        if isinstance(data, str):
            content = data.encode("utf-8")
        elif isinstance(data, bytes | bytearray | memoryview):
            content = bytes(data)
        else:
            content = json.dumps(data, ensure_ascii=False).encode("utf-8")
    elif operation.body == "fields":
        document = {
            name: _json_value(operation, name, arguments[name])
            for name in operation.fields
            if arguments.get(name) is not None
        }
        content = json.dumps(document, ensure_ascii=False).encode("utf-8")
    return content


def prepare(operation: Operation, arguments: Mapping[str, Any]) -> PreparedRequest:
    """The HTTP request of one call: query parameters, the body and its content type."""
    params = query_params(operation, arguments)
    headers: dict[str, str] = {}
    content = request_body(operation, arguments)
    files = None
    if operation.body == "file":
        content = read_file(arguments["file"], "file")
    elif operation.body == "multipart":
        files = []
        for name in operation.fields:
            values = arguments[name] if isinstance(arguments[name], list | tuple) else [arguments[name]]
            for index, value in enumerate(values, start=1):
                payload = read_file(value, f"{name}[{index - 1}]")
                files.append((name, (f"{name}-{index}", payload, "application/octet-stream")))
    if content is not None and operation.content_type:
        headers["Content-Type"] = operation.content_type
    return PreparedRequest(
        operation.method, path_of(operation, arguments), operation.auth, params, headers, content, files
    )


def error_from(response: httpx.Response, errors: Mapping[str, type[ApiError]]) -> ApiError:
    """The ApiError subclass for an error response (ApiError itself for an unknown code or a non-JSON body)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        text = response.text[:200] or response.reason_phrase
        return ApiError(
            text, status=response.status_code, code=f"http_{response.status_code}", headers=response.headers
        )
    code = body["error"]
    error_class = errors.get(code, ApiError)
    return error_class(
        str(body.get("message", "")),
        status=response.status_code,
        code=code,
        headers=response.headers,
        upgrade_url=body.get("upgrade_url"),
    )


def is_textual(content_type: str) -> bool:
    """Whether a response of this media type is text (SVG, text/*) rather than bytes."""
    media = content_type.split(";")[0].strip().lower()
    return media.startswith("text/") or media.endswith("+xml") or media.endswith("+json")


def result_from(operation: Operation, response: httpx.Response) -> Result[Any]:
    content_type = response.headers.get("content-type", "")
    data: Any
    if operation.result == "json":
        data = response.json()
    elif operation.result == "text" or (operation.result == "media" and is_textual(content_type)):
        data = response.content.decode("utf-8")
    elif operation.result == "redirect":
        data = response.headers.get("location", "")
    elif operation.result == "empty":
        data = None
    else:
        data = response.content
    return Result(data=data, status=response.status_code, content_type=content_type, headers=response.headers)


def is_success(operation: Operation, response: httpx.Response) -> bool:
    """200, 201 (created) or 204 (deleted); 303 for an operation that answers a redirect."""
    return response.status_code in (200, 201, 204) or (operation.result == "redirect" and response.status_code == 303)


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    return int(value) if value is not None and value.strip().isdigit() else None


def _float_header(headers: Mapping[str, str], name: str) -> float | None:
    value = headers.get(name)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class SyncOperations(ABC):
    @abstractmethod
    def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        """Send one operation and return its result (raising its ApiError)."""


class AsyncOperations(ABC):
    @abstractmethod
    async def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        """Send one operation and return its result (raising its ApiError)."""
