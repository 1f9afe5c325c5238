"""Routes served by this package's own handler: FastAPI reads their declaration only for the OpenAPI document.

FastAPI's `APIRoute` analyses its endpoint when it is made: a dependant for each parameter, a pydantic field for
each answer model and, for each, whether it is a Pydantic v1 model, which imports `pydantic.v1` (about 45 ms of
every function's cold start, `make bench`'s cold-import rows). None of that answers a request here: the binder
(fileapi.web.binding) binds an endpoint's arguments, and every endpoint answers a `Response`. So an app serves
`ServedRoute`s, Starlette routes that keep what they were declared with (the arguments of
`APIRouter.add_api_route`, given by fileapi.web.routes.Routes); `declaration()` makes FastAPI's route of it where
the document is generated (`fileapi openapi`, `documented`) and where a test compares with FastAPI's own solving.

A ServedRoute answers as FastAPI's route would: the same path and methods (exactly those declared: no HEAD
added to a GET), the same 405 and 404, the route in the request's scope, the endpoint's arguments as FastAPI
binds them (tests/api/test_binding.py) and its Response as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.web.binding import Binder

if TYPE_CHECKING:  # made only for the document, where FastAPI is loaded
    from fastapi.routing import APIRoute

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class ServedRoute(Route):
    """A route whose endpoint (a coroutine function answering a Response) is bound by fileapi.web.binding and
    called by `handler`; `declared` holds FastAPI's arguments for the document (`declaration`).

    :param declared: the arguments `APIRouter.add_api_route` gives its route class (methods, responses, ...).
    """

    # Whether the route is metered: counted (a conversion), admitted without counting (self-service), or None (public).
    counted: ClassVar[bool | None] = None
    # The types of the parameters the handler fills itself (not from the request).
    provided: ClassVar[tuple[type, ...]] = ()

    def __init__(self, path: str, endpoint: Callable[..., Any], **declared: Any) -> None:
        methods = declared.get("methods") or ["GET"]  # FastAPI's default
        super().__init__(
            path,
            endpoint,
            methods=methods,
            name=declared.get("name"),
            include_in_schema=declared.get("include_in_schema", True),
        )
        self.methods = {method.upper() for method in methods}  # as declared: Starlette would add HEAD to a GET
        self.declared = declared
        self.binder = Binder.of(endpoint, provided=self.provided, path=path)
        self.serve = self.handler()  # the request in, the endpoint's response out (fileapi.web.exact_routes calls it)
        self.app = _asgi(self.serve)

    @property
    def openapi_extra(self) -> dict[str, Any] | None:
        """The route's own additions to its OpenAPI operation (its request body's docs, among others)."""
        extra: dict[str, Any] | None = self.declared.get("openapi_extra")
        return extra

    def handler(self) -> Handler:
        """The request in, the endpoint's response out (errors go to the app's handlers)."""
        binder = self.binder
        endpoint = self.endpoint
        # A route that takes no query parameter and no body reads its request as it comes (the Stripe webhook: its
        # sender's URL is not ours to police); any other refuses the query parameters it does not take.
        open_query = not (binder.query or binder.models or binder.json_body or binder.readers)

        async def served(request: Request) -> Response:
            response: Response = await endpoint(**await binder.bind(request, open_query=open_query))
            return response

        return served

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope = super().matches(scope)
        if match is not Match.NONE:
            child_scope["route"] = self  # FastAPI's router reads the matched route from here (the access log too)
        return match, child_scope

    def declaration(self) -> APIRoute:
        """FastAPI's route of this declaration, made once: what the OpenAPI document is generated from."""
        made: APIRoute | None = self.__dict__.get("_declaration")
        if made is None:
            from fastapi.routing import APIRoute

            made = self.__dict__["_declaration"] = APIRoute(self.path, self.endpoint, **self.declared)
        return made


def documented(routes: Iterable[BaseRoute]) -> list[BaseRoute]:
    """`routes` as FastAPI documents them: each ServedRoute's declaration, any other route as it is."""
    return [route.declaration() if isinstance(route, ServedRoute) else route for route in routes]


def _asgi(handler: Handler) -> ASGIApp:
    """The route's ASGI app: the request in, the handler's response out (errors go to the app's handlers)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)

    return app
