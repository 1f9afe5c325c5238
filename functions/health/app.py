"""Health function: the unauthenticated liveness probe and the API's OpenAPI document."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import PlainTextResponse, Response

from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import PUBLIC_STATUSES, error_responses, success_response
from fileapi.web.spec import load_openapi_bytes

router = APIRouter(tags=["Probe"])


@router.get(
    "/health",
    summary="Liveness probe",
    description="Answers 200 `ok` without a key.",
    response_class=PlainTextResponse,
    responses=success_response("text/plain", "ok", schema={"type": "string"}, example="ok", metered=False),
)
def health() -> Response:
    return PlainTextResponse("ok")


@router.get(
    "/openapi.json",
    summary="This API's OpenAPI document",
    description="OpenAPI 3.1 description of every route. No key needed.",
    responses={
        **success_response(
            "application/json",
            "OpenAPI document",
            schema={"type": "object"},
            example={"openapi": "3.1.0", "info": {"title": "File and Data Utility API"}, "paths": {}},
            metered=False,
        ),
        **error_responses(PUBLIC_STATUSES),
    },
)
def openapi_document() -> Response:
    return Response(load_openapi_bytes(), media_type="application/json")


app = create_app(router, title="Health")
handler = lambda_handler(app)
