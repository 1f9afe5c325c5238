"""How a route is declared: its path, summary and answer, its docstring as its description; the family's
`Routes` fills in the rest (tags, the request body's docs, the error responses).

    codes = Routes(router, tags=["QR"])

    @codes.post("/v1/qr/read", "Decode the first QR code in an image", QrReadResult, body=IMAGE_BODY)
    def qr_read(body: RawBody) -> Response:
        '''An image in; {text, format} of the first QR code found.'''
        return json_response(QrReadResult.model_validate(...))

The route's answer is built here once: a model serialised by its aliases, only the fields set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel
from starlette.responses import Response

from fileapi.web.docs import (
    IDEMPOTENCY_KEY_PARAMETER,
    IDEMPOTENT_STATUSES,
    METERED_STATUSES,
    METERING_HEADERS,
    OPERATION_STATUSES,
    accepted_response,
    binary_response,
    error_responses,
    operation_parameters,
)
from fileapi.web.served import ServedRoute

if TYPE_CHECKING:
    from fastapi import APIRouter

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


class Routes:
    """The routes of one family, declared on `router` alike, each served by a `served_by` route
    (fileapi.web.served: FastAPI reads the declaration for the document only).

    :param served_by: the route class: `ServedRoute` (public), or fileapi.web.metering's `MeteredRoute` (a
        conversion: counted) or `SelfServiceRoute` (admitted without counting).
    :param tags: the OpenAPI tags of each route (beside the router's own).
    :param body: the request body's docs (an `openapi_extra`, e.g. `fileapi.web.docs.raw_body`) of every route
        that names none.
    :param answer: the answer of every route that names none (decorator arguments, e.g. `answers_bytes`).
    :param note: text every route's description ends with (after a space).
    :param statuses: the error statuses of every route (its answer's own are replaced).
    :param metered: whether a route answering a model carries the metering headers.
    """

    def __init__(
        self,
        router: APIRouter,
        *,
        tags: Sequence[str] = (),
        body: dict[str, Any] | None = None,
        answer: dict[str, Any] | None = None,
        note: str = "",
        statuses: Iterable[int] = METERED_STATUSES,
        metered: bool = True,
        served_by: type[ServedRoute] = ServedRoute,
    ) -> None:
        from fastapi.routing import APIRoute

        if router.route_class is not APIRoute:  # it would not be the class that serves the routes declared here
            raise TypeError(f"give the route class to Routes (served_by=), not to the router: {router.route_class}")
        self.router = router
        self.served_by = served_by
        self.tags = list(tags)
        self.body = body
        self.answer = answer
        self.note = note
        self.statuses = tuple(statuses)
        self.metered = metered

    def post(self, path: str, summary: str, answer: Any = None, **options: Any) -> Callable[[Endpoint], Endpoint]:
        """Declare the decorated endpoint as POST `path` (see `route`)."""
        return self.route("POST", path, summary, answer, **options)

    def get(self, path: str, summary: str, answer: Any = None, **options: Any) -> Callable[[Endpoint], Endpoint]:
        """Declare the decorated endpoint as GET `path` (see `route`)."""
        return self.route("GET", path, summary, answer, **options)

    def route(
        self,
        method: str,
        path: str,
        summary: str,
        answer: Any = None,
        *,
        body: dict[str, Any] | None = None,
        statuses: Iterable[int] | None = None,
        description: str = "",
        uploads: int = 1,
        **extra: Any,
    ) -> Callable[[Endpoint], Endpoint]:
        """Declare the decorated endpoint as `method` `path`, its docstring as its description.

        :param answer: a model class or a type (answered as JSON, `answers_json`), or decorator arguments
            (`answers_bytes`, `answers_text`, `answers_json` with a description of its own); None: the family's.
        :param body: the request body's docs; None: the family's.
        :param statuses: the error statuses of the route; None: the family's.
        :param description: instead of the docstring (and the family's note), a description computed from a
            figure the code holds.
        :param uploads: for a conversion, how many uploads it takes as an operation (`?upload=`, repeated).
        :param extra: other arguments of `APIRouter.add_api_route` (`openapi_extra` is merged with the body's docs).
        """
        counted = self.served_by.counted
        declared = tuple(self.statuses if statuses is None else statuses)
        asynchronous: dict[str, Any] = {}
        if method == "POST" and counted:  # a conversion: ?upload=, Prefer and Idempotency-Key; 202
            declared += OPERATION_STATUSES
            asynchronous = {"parameters": operation_parameters(uploads)}
        elif method == "POST" and counted is False:  # a self-service POST: Idempotency-Key
            declared += IDEMPOTENT_STATUSES
            asynchronous = {"parameters": [IDEMPOTENCY_KEY_PARAMETER]}
        errors = error_responses(sorted(set(declared)))
        if answer is None:
            answer = self.answer or {}
        elif not isinstance(answer, dict):
            answer = answers_json(answer, metered=self.metered)
        if answer:  # the route's error statuses are the family's (or its own), whatever the answer declared
            success = {code: entry for code, entry in answer["responses"].items() if int(code) < 400}
            if method == "POST" and counted:
                success.update(accepted_response())
            answer = {**answer, "responses": {**success, **errors}}
        tags = [*self.tags, *extra.pop("tags", [])]
        openapi_extra = {**(body or self.body or {}), **asynchronous, **extra.pop("openapi_extra", {})}

        def declare(endpoint: Endpoint) -> Endpoint:
            self.router.add_api_route(
                path,
                endpoint,
                methods=[method],
                summary=summary,
                description=description or described(endpoint, self.note),
                tags=tags or None,
                openapi_extra=openapi_extra or None,
                # The router gives its route class the route's declaration; a ServedRoute keeps it for the document.
                route_class_override=cast(Any, self.served_by),
                **answer,
                **extra,
            )
            return endpoint

        return declare


def described(endpoint: Callable[..., Any], note: str = "") -> str:
    """The description of `endpoint`: its docstring as one paragraph (its lines joined by spaces, as a generated
    client's docstring or an MCP tool's description shows it best), then `note`."""
    lines = (line.strip() for line in (endpoint.__doc__ or "").splitlines())
    text = " ".join(line for line in lines if line)
    return f"{text} {note}" if note else text


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
    media_type: str,
    description: str,
    example: Any,
    *,
    schema: dict[str, Any] | None = None,
    statuses: Iterable[int] = METERED_STATUSES,
    metered: bool = True,
) -> dict[str, Any]:
    """Decorator arguments of a route answering text of `media_type` (JSON text: `schema={}`, any value)."""
    content = {media_type: {"schema": {"type": "string"} if schema is None else schema, "example": example}}
    success: dict[str, Any] = {"description": description, "content": content}
    if metered:
        success["headers"] = METERING_HEADERS
    return {"responses": {200: success, **error_responses(statuses)}}


def answers_redirect(description: str, *, statuses: Iterable[int]) -> dict[str, Any]:
    """Decorator arguments of a route answering 303 See Other, to its `Location`."""
    from starlette.responses import RedirectResponse

    success = {"description": description, "headers": {"Location": {"schema": {"type": "string"}}}}
    return {
        "response_class": RedirectResponse,
        "status_code": 303,
        "responses": {303: success, **error_responses(statuses)},
    }


def json_response(model: BaseModel) -> Response:
    """`model` as the JSON answer: wire (alias) names, only the fields that were set."""
    return Response(model.model_dump_json(by_alias=True, exclude_unset=True), media_type="application/json")
