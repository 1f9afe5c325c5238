"""OpenAPI documentation helpers: request bodies, responses, error responses, the merged spec."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from fileapi import __version__
from fileapi.errors import ALL_ERRORS, URL_ERRORS, ApiError
from fileapi.metering.headers import HEADER_DESCRIPTIONS, RETRY_AFTER_DESCRIPTION
from fileapi.setting_variables import DEFAULT_MAX_BODY_BYTES
from fileapi.web.io import JSON_STRING_NOTE


class ApiErrorBody(BaseModel):
    """Body of every error response."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "error": "invalid_input",
                    "message": "quality: must be 1..100",
                    "docs_url": "/docs/errors#invalid_input",
                }
            ]
        }
    )

    error: str = Field(description="error code", examples=["invalid_input"])
    message: str = Field(description="human-readable text", examples=["quality: must be 1..100"])
    upgrade_url: str | None = Field(default=None, description="present only on some errors")
    docs_url: str = Field(
        description="the section of the error page (GET /docs/errors) about this code, relative to the API's base "
        "URL: what the code means and what to do",
        examples=["/docs/errors#invalid_input"],
    )


_INTEGER_HEADERS = frozenset({"X-Quota-Remaining", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"})
# Header definitions, kept once under components.headers of the document and referred to by each response.
HEADER_COMPONENTS: dict[str, Any] = {
    **{
        name: {
            "description": description,
            "schema": {"type": "integer", "minimum": 0} if name in _INTEGER_HEADERS else {"type": "string"},
        }
        for name, description in HEADER_DESCRIPTIONS.items()
    },
    "X-Request-Id": {"description": "Identifier of this request in the logs.", "schema": {"type": "string"}},
    "Retry-After": {"description": RETRY_AFTER_DESCRIPTION, "schema": {"type": "integer", "minimum": 1}},
    "Location": {
        "description": "The operation this request became: GET it for its state and, once succeeded, its files.",
        "schema": {"type": "string", "examples": ["/v1/operations/op_9d2k4m6p8r0t1v3x5z7b9c1e3g"]},
    },
    "Preference-Applied": {
        "description": "`respond-async` when the request asked for it with `Prefer` (RFC 7240).",
        "schema": {"type": "string", "enum": ["respond-async"]},
    },
}


def _refs(*names: str) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


METERING_HEADERS: dict[str, Any] = _refs(*HEADER_DESCRIPTIONS, "X-Request-Id")
# After admission every answer of a metered endpoint carries the metering headers, failures included (their
# unit was given back); 429s carry them and Retry-After; 503s carry Retry-After.
_RATE_REFUSAL_HEADERS: dict[str, Any] = _refs("Retry-After", *HEADER_DESCRIPTIONS, "X-Request-Id")
_RETRY_HEADERS: dict[str, Any] = _refs("Retry-After", "X-Request-Id")
# A successful answer that may also say when to ask again (an operation still running).
POLLED_HEADERS: dict[str, Any] = {**METERING_HEADERS, **_refs("Retry-After")}

_ERRORS_BY_STATUS: dict[int, list[type[ApiError]]] = {}
for _error in ALL_ERRORS:
    if _error not in URL_ERRORS:
        _ERRORS_BY_STATUS.setdefault(_error.http_status, []).append(_error)

METERED_STATUSES = (400, 401, 403, 413, 429, 500, 503)
# A POST with an Idempotency-Key may also be 409 idempotency_in_flight and 422 idempotency_key_reused; a
# conversion naming uploads, 404 for one that is not the account's.
IDEMPOTENT_STATUSES = (409, 422)
OPERATION_STATUSES = (404, 409, 422)
# A conversion in a worker process may also end in 422 unprocessable_input (fileapi.isolation.pool).
ISOLATED_STATUSES = (400, 401, 403, 413, 422, 429, 500, 503)
PUBLIC_STATUSES = (400, 413, 500)


def error_responses(statuses: Iterable[int]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI responses for the given error statuses, listing the codes each can carry."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        codes = ", ".join(f"`{error.code}`" for error in _ERRORS_BY_STATUS[status])
        entry: dict[str, Any] = {"description": f"Error: {codes}", "model": ApiErrorBody}
        if status == 429:
            entry["headers"] = _RATE_REFUSAL_HEADERS
        elif status in (409, 503):  # 409 idempotency_in_flight: retry after Retry-After seconds
            entry["headers"] = _RETRY_HEADERS
        elif status in (400, 413, 422, 500):
            entry["headers"] = METERING_HEADERS  # on metered endpoints, after admission
        responses[status] = entry
    return responses


OCTET_STREAM = "application/octet-stream"
BINARY: dict[str, Any] = {"type": "string", "format": "binary"}
ANY_JSON: dict[str, Any] = {"description": "Any JSON value: the document itself, not a string holding it."}


def raw_body(description: str, *, text_types: Sequence[str] = (), example: Any = None) -> dict[str, Any]:
    """An `openapi_extra` with a raw request body: `application/octet-stream` bytes, and the text media
    types `text_types` (a string schema, and the example) when the body is text.

    The server reads the bytes whatever the Content-Type (formats are detected from the bytes), so one
    binary media type is declared rather than one per format: generators that know only
    application/octet-stream (openapi-python-client) then generate every operation.
    """
    content: dict[str, Any] = {}
    if text_types:
        description = f"{description} {JSON_STRING_NOTE}"
    for media_type in text_types:
        content[media_type] = {"schema": {"type": "string"}, **({"example": example} if example is not None else {})}
    content[OCTET_STREAM] = {"schema": BINARY}
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": content,
            # The same input as a form (fileapi.web.request_bodies), in an extension rather than in `content`:
            # code generators given two bodies for one operation write clients that do not import.
            MULTIPART_EXTENSION: {"multipart/form-data": {"schema": MULTIPART_FILE_SCHEMA}},
        }
    }


MULTIPART_EXTENSION = "x-also-multipart"
MULTIPART_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "The same input as a form: `curl -F file=@photo.jpg -F width=300` beside the raw `curl --data-binary "
        "@photo.jpg '...?width=300'`. The file goes in a part named `file` (any name when it is the only file; two "
        "files are 400); the options in the query string or as form fields (one given in both is 400). The body "
        "limit and the errors are those of a raw body."
    ),
    "required": ["file"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "The input, as a file part (any field name when it is the form's only file).",
        }
    },
}


def json_body(description: str, *, schema: dict[str, Any] | None = None, example: Any = None) -> dict[str, Any]:
    """An `openapi_extra` with a JSON request body that the route reads as raw bytes (so its text is kept
    exactly): `schema` (default: any JSON value) says what the document holds; never `{type: string}`,
    which makes generated clients send the JSON text double-encoded."""
    entry: dict[str, Any] = {"schema": schema if schema is not None else ANY_JSON}
    if example is not None:
        entry["example"] = example
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": entry},
            MULTIPART_EXTENSION: {"multipart/form-data": {"schema": MULTIPART_FILE_SCHEMA}},  # a .json file
        }
    }


def model_body(media_type: str, model: type[BaseModel], description: str = "") -> dict[str, Any]:
    """An `openapi_extra` with a request body of `media_type` shaped by `model`, for a route that reads
    the body itself (so FastAPI does not see the model): the model's schema inline, by its wire names."""
    schema = model.model_json_schema(by_alias=True)
    return {
        "requestBody": {
            "required": True,
            "description": description or (model.__doc__ or "").strip(),
            "content": {media_type: {"schema": schema}},
        }
    }


def binary_response(media_types: Sequence[str], description: str, *, metered: bool = True) -> dict[int | str, Any]:
    """The 200 entry of a route answering bytes in one of `media_types` (text types such as SVG are
    strings, the others binary), followed by `application/octet-stream`: generators that know no image or
    PDF type (openapi-python-client) then generate a success handler returning the bytes."""
    content: dict[str, Any] = {
        media_type: {"schema": {"type": "string"} if media_type == "image/svg+xml" else BINARY}
        for media_type in media_types
    }
    content.setdefault(OCTET_STREAM, {"schema": BINARY})
    entry: dict[str, Any] = {"description": f"{description} (Content-Type names the format)", "content": content}
    if metered:
        entry["headers"] = METERING_HEADERS
    return {200: entry}


IDEMPOTENCY_KEY_PARAMETER: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "A key of the client's (a UUID, 1-255 printable ASCII characters) that makes a retry safe: "
    "within 24 hours the same key with the same request gets the first answer again (the same operation, for "
    "one answered 202), counted once; with another request it is 422 idempotency_key_reused, and while the "
    "first is still being answered 409 idempotency_in_flight (Retry-After). A failed request does not keep its "
    "key. Keys belong to the API key that sent them (draft-ietf-httpapi-idempotency-key-header).",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}
# An upload's id, as fileapi.operations.records.new_id makes it.
UPLOAD_ID_SCHEMA: dict[str, Any] = {"type": "string", "pattern": "^upl_[a-z0-9]{26}$"}
PREFER_PARAMETER: dict[str, Any] = {
    "name": "Prefer",
    "in": "header",
    "required": False,
    "description": "`respond-async` (RFC 7240): answer 202 with an operation instead of waiting for the result "
    "(the body is kept as an upload of the account; the result is fetched from the operation). Other "
    "preferences are ignored.",
    "schema": {"type": "string", "examples": ["respond-async"]},
}


PREFER_WAIT_PARAMETER: dict[str, Any] = {
    "name": "Prefer",
    "in": "header",
    "required": False,
    "description": "`wait=N` (RFC 7240, N at most 25): hold the answer until the pipeline ends or N seconds pass; "
    "ended: 200 with the finished operation, else the usual 202.",
    "schema": {"type": "string", "examples": ["wait=20"]},
}


def upload_parameter(max_uploads: int) -> dict[str, Any]:
    """The `upload` query parameter of a conversion that takes at most `max_uploads` uploads (>= 1): one upload
    id, or (more than one) the parameter repeated, once per file, in order."""
    described = (
        "Run this request as an operation over an upload (POST /v1/uploads) instead of a body: the body is then "
        "empty, and the answer is 202 with the operation."
    )
    if max_uploads == 1:
        return {
            "name": "upload",
            "in": "query",
            "required": False,
            "description": described,
            "schema": UPLOAD_ID_SCHEMA,
        }
    return {
        "name": "upload",
        "in": "query",
        "required": False,
        "description": f"{described} Repeated, once per file, in order (at most {max_uploads}).",
        "style": "form",
        "explode": True,
        "schema": {"type": "array", "items": UPLOAD_ID_SCHEMA, "minItems": 1, "maxItems": max_uploads},
    }


def operation_parameters(max_uploads: int) -> list[dict[str, Any]]:
    """The parameters that make a conversion an operation (`upload`, `Prefer`), and its `Idempotency-Key`."""
    return [upload_parameter(max_uploads), PREFER_PARAMETER, IDEMPOTENCY_KEY_PARAMETER]


def accepted_response() -> dict[int | str, Any]:
    """The 202 entry of a conversion: the operation the request became (with `?upload=` or `Prefer`)."""
    return {
        202: {
            "description": "Accepted as an operation (the request named uploads or preferred respond-async): "
            "poll Location after Retry-After seconds, or register a webhook. Counted now; given back if it fails.",
            "headers": {**_refs("Location", "Retry-After", "Preference-Applied"), **METERING_HEADERS},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OperationResult"}}},
        }
    }


# The project's one licence (LICENSE at the repository's root; each package declares the same SPDX identifier).
LICENSE_INFO: dict[str, str] = {"name": "MIT", "identifier": "MIT"}


def build_openapi(apps: Iterable[FastAPI], *, title: str = "File and Data Utility API") -> dict[str, Any]:
    """One OpenAPI document over the routes of every function's app (a build-time tool: imported lazily)."""
    from fastapi.openapi.utils import get_openapi

    from fileapi.web.served import documented

    routes = documented(route for app in apps for route in app.routes)
    spec = get_openapi(
        title=title,
        version=__version__,
        description=(
            "Stateless file and data utilities. Every /v1 request needs `Authorization: Bearer sk_live_...`. "
            "Errors are ApiError JSON. "
            f"Request bodies are limited to {DEFAULT_MAX_BODY_BYTES:,} bytes by default (413 too_large). "
            "A file goes as the raw body (`curl --data-binary @photo.jpg`) or as multipart/form-data with a `file` "
            "part (`curl -F file=@photo.jpg`, options as query parameters or form fields); a JSON body is read as "
            "JSON whatever its Content-Type (`curl -d '{...}'` works). "
            "Every conversion answers within 20 s by default: past that it is stopped and answered 413 too_large "
            "(not counted); the same request with `Prefer: respond-async` runs as an operation, which has longer. "
            "Conversions of untrusted files run in worker processes of their own: a file that "
            "crashes its converter is 422 unprocessable_input, one that needs more memory than a conversion may use "
            "413 too_large; either way no other request is affected."
        ),
        routes=routes,
        license_info=LICENSE_INFO,
    )
    spec["servers"] = [{"url": "/"}]
    spec["components"]["headers"] = HEADER_COMPONENTS
    _tidy(spec)
    return spec


OPERATION_ID = "x-operation-id"


def named(operation_id: str) -> dict[str, Any]:
    """Decorator arguments naming a route's operation `operation_id` in the document (and so in the SDKs),
    where the one its path gives would not read well (a path parameter, several methods)."""
    return {"openapi_extra": {OPERATION_ID: operation_id}}


def operation_id(path: str, method: str | None = None) -> str:
    """The operationId of a path: `/v1/image/resize` is `image_resize` (the SDKs' method names); a path served
    for several methods adds the method (`/v1/webhooks` GET is `webhooks_get`); `{name}` counts as `name`."""
    name = path.removeprefix("/v1/").strip("/").replace("{", "").replace("}", "")
    base = "".join(char if char.isalnum() else "_" for char in name)
    return f"{base}_{method}" if method else base


def _tidy(spec: dict[str, Any]) -> None:
    """Make the generated document say exactly what the API does.

    Operation ids come from the paths, or from a route's `x-operation-id` (`named`); operations without a key
    say `security: []`. FastAPI's own 422 entries go: validation errors are 400 invalid_input here (422 is
    unprocessable_input, declared by the routes that convert in a worker). The empty `application/json` entry
    FastAPI adds beside a route's real media types goes. Error bodies name their codes through the `ApiErrorCode` enum.
    An optional parameter reads as its type (`_without_null`).
    """
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                parameter["schema"] = _without_null(parameter.get("schema", {}))
            named = operation.pop(OPERATION_ID, None)  # a route's own name for itself (the SDKs' method name)
            operation["operationId"] = named or operation_id(path, method if len(operations) > 1 else None)
            operation.setdefault("security", [])  # public: said explicitly, so no global default applies
            responses = operation["responses"]
            if responses.get("422", {}).get("description") == "Validation Error":
                del responses["422"]
            content = responses.get("200", {}).get("content", {})
            if len(content) > 1 and content.get("application/json", {}).get("schema") == {}:
                del content["application/json"]
    schemas = spec["components"]["schemas"]
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["ApiErrorCode"] = {
        "type": "string",
        "enum": sorted({error.code for error in ALL_ERRORS}),
        "description": "Every error code the API answers with; each route lists the ones it can give.",
    }
    for schema in schemas.values():  # an enumeration's example: its first value (the models give the objects')
        if "enum" in schema and "examples" not in schema:
            schema["examples"] = schema["enum"][:1]
    schemas["ApiErrorBody"]["properties"]["error"] = {
        "$ref": "#/components/schemas/ApiErrorCode",
        "description": "error code",
        "examples": ["invalid_input"],
    }


_NULL = {"type": "null"}


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's schema without pydantic's `null` branch (`anyOf: [T, null]`, from `T | None = None`): a
    parameter cannot be sent as null, only left out, so it reads as T ("integer", not "integer | (integer |
    null)"). A schema with another default, or other branches, is kept as it is."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or _NULL not in branches or len(branches) != 2 or schema.get("default"):
        return schema
    (kept,) = (branch for branch in branches if branch != _NULL)
    around = {name: value for name, value in schema.items() if name not in ("anyOf", "default")}
    return {**kept, **around}
