"""An app's routes at fixed paths, answered without the framework's layers.

A FastAPI app hands a request to a route through FastAPI's and Starlette's own layers (the app's call, its
ServerErrorMiddleware, telemetry and body-limit layers, ExceptionMiddleware, AsyncExitStackMiddleware) and the
router, which tries each route's pattern in turn: 15 us of a metered request's ~90 (`make bench-quick`, the stack's
own cost). A ServedRoute (fileapi.web.served) at a path without parameters needs none of it: it binds its own
arguments, opens no file FastAPI would close, and an exact method and path is its match; our front door
(fileapi.web.front_door) already answers what escapes as 500. So a `ServiceApp` sends such a request from its own
call straight into the shared middleware around `ExactRoutes`, which prepares its body as RequestBodyMiddleware
would (fileapi.web.request_bodies), gives the route the scope the framework would (`app`, `router`, `endpoint`,
`path_params`, `route`), and answers the route's exceptions with the app's exception handlers, chosen as
ExceptionMiddleware chooses them: an HTTPException's status first, then the exception's class and its bases in
order; an exception no handler takes goes on out, to the front door's catch-all, as it did. Any other request
(another method, a path with parameters, a `root_path`) goes through the framework as before.

What the skipped layers would do, none does here: the app declares no root path, no body size of the framework's
(the front door limits bodies) and no debug pages, and its telemetry is off (create_app); a 500 handler of the
framework's would never see what the front door's catch-all takes first. A route is taken only where
the router would choose it: no route before it matches its method and path. tests/api/test_exact_routes.py holds
the answers equal to the framework's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.web.errors import TrackedSend
from fileapi.web.request_bodies import RouteBody, as_the_route_reads, route_bodies
from fileapi.web.served import ServedRoute

Handler = Callable[[Request, Exception], Coroutine[Any, Any, Response]]
Wrap = Callable[[ASGIApp], ASGIApp]
# The signals of FastAPI's `telemetry` option (its TelemetryConfig).
_TELEMETRY = ("tracing", "metrics", "logs")


class ServiceApp(FastAPI):
    """A FastAPI app that answers its fixed-path ServedRoutes itself (see the module): `wrap` puts the shared
    middleware around them, as the app's own middleware is around its router."""

    def __init__(self, *, wrap: Wrap, **options: Any) -> None:
        super().__init__(**options)
        self.wrap = wrap
        telemetry = options.get("telemetry")
        # FastAPI's telemetry, when on, is the app's own layer: then every request goes through it.
        self.telemetry_off = isinstance(telemetry, dict) and not any(telemetry.get(kind) for kind in _TELEMETRY)
        self.exact: ExactRoutes | None = None
        self.front: ASGIApp | None = None

    def build_middleware_stack(self) -> ASGIApp:
        """The framework's stack, and beside it the front of the exact routes, from the routes, the exception
        handlers and the settings as they are now (the framework reads them once, at the first request)."""
        stack = super().build_middleware_stack()
        usable = self.telemetry_off and not self.root_path and self.max_body_size is None and not self.debug
        self.exact = ExactRoutes(self) if usable else None
        self.front = self.wrap(self.exact) if self.exact is not None else None
        return stack

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.middleware_stack is None:
            self.middleware_stack = self.build_middleware_stack()
        if (
            self.front is not None
            and self.exact is not None
            and (scope.get("method"), scope.get("path")) in self.exact.routes
            and scope["type"] == "http"
            and not scope.get("root_path")
        ):
            scope["app"] = self
            await self.front(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class ExactRoutes:
    """Answers a request whose method and path are exactly a ServedRoute's with that route (see the module); the
    app sends it no other.

    :param app: the FastAPI app whose routes and exception handlers these are (read when its middleware stack is
        built, as the framework reads them).
    """

    def __init__(self, app: FastAPI) -> None:
        self.router = app.router
        self.status_handlers, self.handlers = _handlers(app.exception_handlers)
        usable = HTTPException in self.handlers and not getattr(app.router, "form_limits", None)
        self.routes = exact_routes(app.router.routes) if usable else {}
        bodies = route_bodies(self.routes.values())  # its own routes (RequestBodyMiddleware reads them all)
        self.bodies: dict[tuple[str, str], RouteBody] = {key: bodies[key] for key in self.routes if key in bodies}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = (scope["method"], scope["path"])
        route = self.routes[key]
        body = self.bodies.get(key)
        if body is not None:
            receive = await as_the_route_reads(body, scope, receive)
        if "router" not in scope:
            scope["router"] = self.router
        scope["endpoint"] = route.endpoint
        scope["path_params"] = dict(scope.get("path_params", {}))
        scope["route"] = route
        request = Request(scope, receive, send)
        try:
            response = await route.serve(request)
        except Exception as exc:  # nothing is sent before the route's handler returns its response
            handler = self._handler(exc)
            if handler is None:
                raise
            await (await handler(request, exc))(scope, receive, send)
            exc.__traceback__ = None  # as ExceptionMiddleware: a reused instance would keep each request's frames
            return
        if type(response).__call__ is Response.__call__:
            try:
                await response(scope, receive, send)
            except Exception as exc:  # a Response sends its start first: what fails then fails a started answer
                if self._handler(exc) is not None:
                    raise _started() from exc
                raise
            return
        tracked = TrackedSend(send)  # a file's or a stream's answer may fail before it starts
        try:
            await response(scope, receive, tracked)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:
                raise
            if tracked.started:
                raise _started() from exc
            await (await handler(request, exc))(scope, receive, tracked)
            exc.__traceback__ = None

    def _handler(self, exc: Exception) -> Handler | None:
        if isinstance(exc, HTTPException) and exc.status_code in self.status_handlers:
            return self.status_handlers[exc.status_code]
        for kind in type(exc).__mro__:
            if kind in self.handlers:
                return self.handlers[kind]
        return None


def _started() -> RuntimeError:
    return RuntimeError("Caught handled exception, but response already started.")


def _handlers(registered: dict[Any, Any]) -> tuple[dict[int, Handler], dict[type, Handler]]:
    """The app's exception handlers as ExceptionMiddleware gets them (500 and Exception are ServerErrorMiddleware's),
    by status and by class; none when one of them is not a coroutine function (the framework runs those on its
    thread pool: they are left to it)."""
    handlers = {key: value for key, value in registered.items() if key not in (500, Exception)}
    if not all(inspect.iscoroutinefunction(handler) for handler in handlers.values()):
        return {}, {}
    by_status = {key: value for key, value in handlers.items() if isinstance(key, int)}
    by_class = {key: value for key, value in handlers.items() if isinstance(key, type)}
    return by_status, by_class


def exact_routes(routes: Iterable[BaseRoute]) -> dict[tuple[str, str], ServedRoute]:
    """(method, path) of each ServedRoute at a path without parameters, for each of its methods that no route
    before it matches at that path (the router takes the first full match)."""
    found: dict[tuple[str, str], ServedRoute] = {}
    earlier: list[BaseRoute] = []
    for route in routes:
        if isinstance(route, ServedRoute) and not route.param_convertors:
            for method in sorted(route.methods or ()):
                scope = {"type": "http", "method": method, "path": route.path, "root_path": ""}
                if all(other.matches(scope)[0] is not Match.FULL for other in earlier):
                    found.setdefault((method, route.path), route)
        earlier.append(route)
    return found
