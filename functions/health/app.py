"""Health function: the unauthenticated liveness probe, the API's OpenAPI document, its error page, the
interactive reference (/docs, fileapi.web.docs_page) and the usage page (/usage, fileapi.web.usage_page).

Its Lambda handler serves a FastAPI-free app (fileapi.web.plain): importing FastAPI alone takes longer
than this function's cold-start budget. `app`, the FastAPI app that declares the routes (the OpenAPI
build, the template check), is built on first use; the pages' routes are not in the document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.responses import PlainTextResponse, Response

from fileapi.web import docs_page, usage_page
from fileapi.web.app import lambda_handler
from fileapi.web.errors import ERROR_DOCS_PATH
from fileapi.web.plain import plain_app
from fileapi.web.spec import load_openapi_bytes

# The pages a person opens (their files and redirects too): not operations of the API.
PAGES = {**docs_page.page_routes(), **usage_page.page_routes()}

if TYPE_CHECKING:
    from fastapi import FastAPI


async def health() -> Response:
    """Answers 200 `ok` without a key."""
    return PlainTextResponse("ok")


async def openapi_document() -> Response:
    """OpenAPI 3.1 description of every route. No key needed."""
    return Response(load_openapi_bytes(), media_type="application/json")


async def error_page() -> Response:
    """An HTML page with a section per error code (its `id` is the code). Every error's `docs_url` links to its
    section. No key needed."""
    from fileapi.web.error_page import error_page_html

    return Response(error_page_html(), media_type="text/html; charset=utf-8")


def build_app() -> FastAPI:
    """The FastAPI app of the function: the routes' declarations for the OpenAPI document."""
    from fastapi import APIRouter

    from fileapi.web.app import create_app
    from fileapi.web.docs import PUBLIC_STATUSES
    from fileapi.web.routes import Routes, answers_text

    router = APIRouter(tags=["Probe"])
    public = Routes(router, statuses=PUBLIC_STATUSES)
    public.get(
        "/health",
        "Liveness probe",
        answers_text("text/plain", "ok", "ok", metered=False),
        response_class=PlainTextResponse,
        statuses=(),
    )(health)
    document = {"openapi": "3.1.0", "info": {"title": "File and Data Utility API"}, "paths": {}}
    public.get(
        "/openapi.json",
        "This API's OpenAPI document",
        answers_text(
            "application/json",
            "OpenAPI document",
            document,
            schema={"type": "object"},
            metered=False,
        ),
    )(openapi_document)
    public.get(
        ERROR_DOCS_PATH,
        "What each error code means and what to do",
        answers_text(
            "text/html",
            "The error page",
            '<h2 id="invalid_input">invalid_input</h2>',
            metered=False,
        ),
    )(error_page)
    for path, endpoint in PAGES.items():  # the document's viewer and the usage page, not operations of the API
        router.add_api_route(path, endpoint, methods=["GET"], include_in_schema=False)
    return create_app(router, title="Health")


# What the handler serves, and the local server too (fileapi.local.server.serving_app).
asgi = plain_app(
    {
        ("GET", "/health"): health,
        ("GET", "/openapi.json"): openapi_document,
        ("GET", ERROR_DOCS_PATH): error_page,
        **{("GET", path): endpoint for path, endpoint in PAGES.items()},
    }
)
handler = lambda_handler(asgi)


def __getattr__(name: str) -> Any:
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
