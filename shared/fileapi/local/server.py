"""The local API: every function's app behind one port, routed exactly as template.yaml declares.

A request whose method and path are not an HttpApi route of the template gets the same
ApiError 404/405 that API Gateway's absence of a route would stand for, even when some
function's app would answer it: what runs locally is what the template deploys. CORS too:
preflights and CORS headers as the template's CorsConfiguration declares (fileapi.local.cors).
"""

from __future__ import annotations

import re

from fastapi import FastAPI
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.local.arrival import BodyDeadline
from fileapi.local.cors import CorsMiddleware
from fileapi.local.template import TEMPLATE_PATH, FunctionSpec, load_cors, load_function_module, load_functions
from fileapi.services import start_workers, stop_workers
from fileapi.settings import get_settings
from fileapi.web.errors import error_response, http_error
from fileapi.web.front_door import FrontDoor


class TemplateRouter:
    """ASGI app dispatching (method, path) to the function app the template routes it to."""

    def __init__(self, functions: list[FunctionSpec], *, local_pages: ASGIApp | None = None) -> None:
        self.functions = functions
        self.local_pages = local_pages
        self.routes: dict[str, dict[str, ASGIApp]] = {}
        # Paths with parameters ({name}: one segment, as API Gateway matches them), tried after exact paths.
        self.patterns: list[tuple[re.Pattern[str], dict[str, ASGIApp]]] = []
        for spec in functions:
            app = serving_app(spec)
            for method, path in spec.routes:
                self.routes.setdefault(path, {})[method] = app
        for path, methods in self.routes.items():
            if "{" in path:
                self.patterns.append((re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"), methods))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _accept_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self.local_pages is not None and scope["path"].startswith("/local/"):
            await self.local_pages(scope, receive, send)
            return
        methods = self.routes.get(scope["path"]) or next(
            (methods for pattern, methods in self.patterns if pattern.match(scope["path"])), None
        )
        if methods is None:
            error = http_error(StarletteHTTPException(404))
        elif scope["method"] not in methods:
            error = http_error(StarletteHTTPException(405, headers={"Allow": ", ".join(sorted(methods))}))
        else:
            await methods[scope["method"]](scope, receive, send)
            return
        await FrontDoor(error_response(error), max_body_bytes=None)(scope, receive, send)


def function_app(spec: FunctionSpec) -> FastAPI:
    """The FastAPI app of a template function (its handler module's `app`)."""
    app = load_function_module(spec).app
    if not isinstance(app, FastAPI):
        raise TypeError(f"{spec.logical_id}: {spec.handler} has no FastAPI `app`")
    return app


def serving_app(spec: FunctionSpec) -> ASGIApp:
    """The ASGI app a template function's Lambda handler serves: its module's `asgi` when it has one (an app
    without FastAPI, web.plain), else its FastAPI `app`."""
    module = load_function_module(spec)
    served: ASGIApp | None = getattr(module, "asgi", None)
    return served if served is not None else function_app(spec)


async def _accept_lifespan(receive: Receive, send: Send) -> None:
    """The server's start-up starts the conversion workers (so that no request waits for them); its shutdown,
    once the requests in flight are answered, stops them."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            start_workers()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            stop_workers()
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_local_app() -> ASGIApp:
    """The whole API as one ASGI app (uvicorn factory), behind the template's CORS configuration (the allowed
    origins from FILEAPI_CORS_ALLOWED_ORIGINS when set) and a deadline for bodies (fileapi.local.arrival); with
    the billing stand-in's portal page under /local/ when it is on (fileapi.account.standin)."""
    settings = get_settings()
    local_pages = None
    if settings.billing_standin:
        from fileapi.local.portal_page import portal_app

        local_pages = portal_app()
    router = TemplateRouter(load_functions(TEMPLATE_PATH), local_pages=local_pages)
    cors = CorsMiddleware(router, load_cors(TEMPLATE_PATH, allow_origins=settings.cors_allowed_origins))
    return BodyDeadline(cors, seconds=settings.request_seconds)
