"""An app's routes at fixed paths, answered without the framework's router.

FastAPI's app hands a request to its routes through Starlette's ExceptionMiddleware, its own
AsyncExitStackMiddleware and the router, which tries each route's pattern in turn: 9 us of a metered request's
~90 (`make bench-quick`, the stack's own cost). A ServedRoute (fileapi.web.served) at a path without parameters
needs none of it: it binds its own arguments, opens no file FastAPI would close, and an exact method and path is
its match. `ExactRoutes`, the app's innermost middleware, sends such a request straight to its route, with the
scope the router gives it (`router`, `endpoint`, `path_params`, `route`), and answers the route's exceptions with
the app's exception handlers, chosen as ExceptionMiddleware chooses them: an HTTPException's status first, then the
exception's class and its bases in order; an exception no handler takes goes on out, as it did. Any other request
(another method, a path with parameters, a mounted app's `root_path`) goes through the framework as before.

A route is taken only where the router would choose it: no route before it matches its method and path.
tests/api/test_exact_routes.py holds the answers equal to the framework's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.web.errors import TrackedSend
from fileapi.web.served import ServedRoute

if TYPE_CHECKING:
    from fastapi import FastAPI

Handler = Callable[[Request, Exception], Coroutine[Any, Any, Response]]
# The scope key FastAPI's opt-in telemetry sets: then its router records the route chosen, so it chooses it.
_TELEMETRY = "fastapi.telemetry"


class ExactRoutes:
    """Sends a request whose method and path are exactly a ServedRoute's to that route (see the module).

    :param app: the FastAPI app whose routes and exception handlers these are (read when the middleware stack is
        built, as the framework reads them).
    """

    def __init__(self, inner: ASGIApp, *, app: FastAPI) -> None:
        self.app = inner
        self.router = app.router
        self.status_handlers, self.handlers = _handlers(app.exception_handlers)
        usable = HTTPException in self.handlers and not getattr(app.router, "form_limits", None)
        self.routes = exact_routes(app.router.routes) if usable else {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self.routes.get((scope.get("method", ""), scope.get("path", "")))
        if route is None or scope["type"] != "http" or scope.get("root_path") or _TELEMETRY in scope:
            await self.app(scope, receive, send)
            return
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
