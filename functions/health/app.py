"""Health function: the unauthenticated liveness probe, the API's OpenAPI document and its error page.

Its Lambda handler serves a FastAPI-free app (fileapi.web.plain): importing FastAPI alone takes longer
than this function's cold-start budget. `app`, the FastAPI app that declares the two routes (the OpenAPI
build, the local server), is built on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.responses import PlainTextResponse, Response

from fileapi.web.app import lambda_handler
from fileapi.web.errors import ERROR_DOCS_PATH
from fileapi.web.plain import plain_app
from fileapi.web.spec import load_openapi_bytes

if TYPE_CHECKING:
    from fastapi import FastAPI


async def health() -> Response:
    return PlainTextResponse("ok")


async def openapi_document() -> Response:
    return Response(load_openapi_bytes(), media_type="application/json")


async def error_page() -> Response:
    from fileapi.web.error_page import error_page_html

    return Response(error_page_html(), media_type="text/html; charset=utf-8")


def build_app() -> FastAPI:
    """The FastAPI app of the function: the routes' declarations for the OpenAPI document."""
    from fastapi import APIRouter

    from fileapi.web.app import create_app
    from fileapi.web.docs import PUBLIC_STATUSES, error_responses, success_response

    router = APIRouter(tags=["Probe"])
    router.get(
        "/health",
        summary="Liveness probe",
        description="Answers 200 `ok` without a key.",
        response_class=PlainTextResponse,
        responses=success_response("text/plain", "ok", schema={"type": "string"}, example="ok", metered=False),
    )(health)
    router.get(
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
    )(openapi_document)
    router.get(
        ERROR_DOCS_PATH,
        summary="What each error code means and what to do",
        description=(
            "An HTML page with a section per error code (its `id` is the code). Every error's `docs_url` links to "
            "its section. No key needed."
        ),
        responses={
            **success_response(
                "text/html",
                "The error page",
                schema={"type": "string"},
                example='<h2 id="invalid_input">invalid_input</h2>',
                metered=False,
            ),
            **error_responses(PUBLIC_STATUSES),
        },
    )(error_page)
    return create_app(router, title="Health")


# What the handler serves, and the local server too (fileapi.local.server.serving_app).
asgi = plain_app(
    {("GET", "/health"): health, ("GET", "/openapi.json"): openapi_document, ("GET", ERROR_DOCS_PATH): error_page}
)
handler = lambda_handler(asgi)


def __getattr__(name: str) -> Any:
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
