"""The app factory every function uses: error mapping, body limit, access log, request bodies as sent
(multipart files, JSON under any label), no per-app docs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from aws_lambda_powertools.logging import correlation_paths
from mangum import Mangum
from starlette.types import ASGIApp

from fileapi import __version__
from fileapi.services import preload_in_workers, register_snapstart_hooks, start_workers
from fileapi.settings import get_settings
from fileapi.telemetry import logger
from fileapi.web.errors import install_error_handlers
from fileapi.web.front_door import FrontDoor
from fileapi.web.invocation import one_request_at_a_time
from fileapi.web.limits import TEXT_MIME_TYPES
from fileapi.web.tracing import get_tracer

if TYPE_CHECKING:  # imported by create_app: a function without FastAPI routes (Health) never loads it
    from fastapi import APIRouter, FastAPI


def create_app(*routers: APIRouter, title: str, worker_modules: tuple[str, ...] = ()) -> FastAPI:
    """A FastAPI app serving `routers`, with the shared error mapping and middleware.

    The merged OpenAPI document of all functions is served by the Health function at
    /openapi.json (see `fileapi.web.docs.build_openapi`), so apps carry no docs routes.

    :param worker_modules: what the app's conversion workers import before their first job (its converters
        and their libraries: fileapi.web.conversions).
    """
    from fileapi.web.exact_routes import ServiceApp
    from fileapi.web.request_bodies import RequestBodyMiddleware  # FastAPI routes' bodies: FastAPI apps only

    preload_in_workers(*worker_modules)
    app = ServiceApp(
        wrap=with_shared_middleware,  # around the routes it answers itself (web.exact_routes), as around the rest
        title=title,
        version=__version__,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        # FastAPI's own OpenTelemetry instrumentation, off: the functions trace with X-Ray (web.tracing) and
        # log with Powertools; its check for a configured provider would otherwise run on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    for router in routers:
        # Flat, not include_router: FastAPI >= 0.160 wraps included routers, and app.routes
        # must list each APIRoute for the template check and the OpenAPI build.
        app.router.routes.extend(router.routes)
    _close_queries(app.router.routes)
    install_error_handlers(app)
    app.add_middleware(RequestBodyMiddleware, routes=app.router.routes)
    for middleware, options in shared_middleware():
        app.add_middleware(middleware, **options)
    return app


def _close_queries(routes: list[Any]) -> None:
    """Make the routes FastAPI solves itself (none an app serves: they are ServedRoutes, bound by
    fileapi.web.binding, fileapi.web.served) refuse unknown query parameters, as the bound ones do; a route that
    declares no parameter and no body reads its request as it comes (the Stripe webhook: its sender's URL is not
    ours to police) and is left as it is."""
    from fastapi.routing import APIRoute

    from fileapi.web.binding import closed_query

    for route in routes:
        if isinstance(route, APIRoute) and getattr(route, "binder", None) is None:
            dependant = route.dependant
            if dependant.query_params or dependant.body_params:
                names = tuple(param.alias for param in dependant.query_params)
                route.app = closed_query(route.app, names)


def shared_middleware() -> list[tuple[Any, dict[str, Any]]]:
    """The middleware every app runs, innermost first (each with its options): the front door (request id, body
    limit, exceptions that escaped as 500 internal_error, the access record with the stage's key on it)."""
    settings = get_settings()
    logger.append_keys(stage=settings.stage)
    return [(FrontDoor, {"max_body_bytes": settings.max_body_bytes, "emit_metrics": settings.emit_metrics})]


def with_shared_middleware(app: ASGIApp) -> ASGIApp:
    """`app` inside the shared middleware, for an ASGI app that is not a FastAPI app (web.plain)."""
    for middleware, options in shared_middleware():
        app = middleware(app, **options)
    return app


def lambda_handler(app: ASGIApp) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The Lambda entry point of a function: Mangum over `app` (API Gateway HTTP API payload v2,
    bodies base64-encoded both ways where binary), with the Lambda context and API Gateway's
    request id injected into every log record, and in-process work run inline (the invocation is alone). The
    conversion worker of a function that has one starts now, in the function's init (and so in its SnapStart
    snapshot)."""
    register_snapstart_hooks()
    if get_settings().lambda_memory_mb is not None:
        start_workers()
    # Mangum types its app with a protocol of its own (a coroutine where Starlette's ASGIApp says awaitable).
    adapter = Mangum(cast(Any, app), lifespan="off", text_mime_types=list(TEXT_MIME_TYPES))

    def alone(event: dict[str, Any], context: Any) -> dict[str, Any]:
        with one_request_at_a_time():  # an invocation is the process's only request (web.invocation)
            return adapter(event, context)

    handler: Callable[[dict[str, Any], Any], dict[str, Any]] = logger.inject_lambda_context(
        alone,
        correlation_id_path=correlation_paths.API_GATEWAY_HTTP,
        clear_state=True,
    )
    tracer = get_tracer()
    if tracer is None:
        return handler
    logged = handler

    def traced(event: dict[str, Any], context: Any) -> dict[str, Any]:  # "## traced" in X-Ray
        return logged(event, context)

    traced_handler: Callable[[dict[str, Any], Any], dict[str, Any]] = tracer.capture_lambda_handler(
        traced, capture_response=False
    )
    return traced_handler
