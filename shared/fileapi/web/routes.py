"""What a route declares besides its path and docs: its answer's shape and its error responses.

    @router.post("/v1/qr/read", summary=..., openapi_extra=IMAGE_BODY, **answers_json(QrCode))
    def qr_read(body: RawBody) -> Response:
        return json_response(QrCode.model_validate(...))

The route's answer is built here once: a model serialised by its aliases, only the fields set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from starlette.responses import Response

from fileapi.web.docs import METERED_STATUSES, METERING_HEADERS, binary_response, error_responses


def answers_json(
    model: Any, description: str = "", *, statuses: Iterable[int] = METERED_STATUSES, metered: bool = True
) -> dict[str, Any]:
    """Decorator arguments of a route answering `model` (a model class or a type) as JSON (default
    description: the model's docstring)."""
    success: dict[str, Any] = {"description": description or (model.__doc__ or model.__name__).strip()}
    if metered:
        success["headers"] = METERING_HEADERS
    return {"response_model": model, "responses": {200: success, **error_responses(statuses)}}


def answers_bytes(
    media_types: Sequence[str],
    description: str,
    *,
    headers: dict[str, Any] | None = None,
    statuses: Iterable[int] = METERED_STATUSES,
) -> dict[str, Any]:
    """Decorator arguments of a route answering bytes in one of `media_types` (with `headers` beside the
    metering headers)."""
    success = binary_response(media_types, description)
    if headers:
        success[200] = {**success[200], "headers": {**success[200]["headers"], **headers}}
    return {"responses": {**success, **error_responses(statuses)}}


def answers_text(
    media_type: str, description: str, example: Any, *, schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Decorator arguments of a route answering text of `media_type` (JSON text: `schema={}`, any value)."""
    content = {media_type: {"schema": {"type": "string"} if schema is None else schema, "example": example}}
    success = {"description": description, "content": content, "headers": METERING_HEADERS}
    return {"responses": {200: success, **error_responses(METERED_STATUSES)}}


def json_response(model: BaseModel) -> Response:
    """`model` as the JSON answer: wire (alias) names, only the fields that were set."""
    return Response(model.model_dump_json(by_alias=True, exclude_unset=True), media_type="application/json")
