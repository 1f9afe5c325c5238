"""A FastAPI-free ASGI app for a function whose routes read nothing from the request (Health).

Exact (method, path) dispatch to `async def endpoint() -> Response`, inside the shared middleware
(web.app.with_shared_middleware: error mapping, body limit, access log), with the same ApiError
404/405 as every app. Its cold import is Starlette's responses, not FastAPI's (which alone costs more
than the Health function's import budget); the function's FastAPI app, built on first use, still
declares the routes for the OpenAPI document and serves them locally.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.web.app import with_shared_middleware
from fileapi.web.errors import error_response, http_error

Endpoint = Callable[[], Awaitable[Response]]


@dataclass(frozen=True)
class PlainRoute:
    """A matched route: the access log records its `path` (the template, never the caller's text)."""

    path: str
    endpoint: Endpoint


class PlainApp:
    """ASGI app answering each (method, path) of `routes` with its endpoint's response."""

    def __init__(self, routes: Mapping[tuple[str, str], Endpoint]) -> None:
        self.routes: dict[str, dict[str, PlainRoute]] = {}
        for (method, path), endpoint in routes.items():
            self.routes.setdefault(path, {})[method] = PlainRoute(path, endpoint)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        methods = self.routes.get(scope["path"])
        route = methods.get(scope["method"]) if methods else None
        if route is not None:
            scope["route"] = route
            response = await route.endpoint()
        elif methods is None:
            response = error_response(http_error(StarletteHTTPException(404)))
        else:
            allowed = ", ".join(sorted(methods))
            response = error_response(http_error(StarletteHTTPException(405, headers={"Allow": allowed})))
        await response(scope, receive, send)


def plain_app(routes: Mapping[tuple[str, str], Endpoint]) -> ASGIApp:
    """`routes` as an ASGI app inside the shared middleware."""
    return with_shared_middleware(PlainApp(routes))
