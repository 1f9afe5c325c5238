"""The app factory every function uses: error mapping, body limit, access log, no per-app docs."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from fileapi import __version__
from fileapi.settings import get_settings
from fileapi.web.errors import CatchAllMiddleware, install_error_handlers
from fileapi.web.limits import BodyLimitMiddleware
from fileapi.web.logs import AccessLogMiddleware


def create_app(*routers: APIRouter, title: str) -> FastAPI:
    """A FastAPI app serving `routers`, with the shared error mapping and middleware.

    The merged OpenAPI document of all functions is served by the Health function at
    /openapi.json (see `fileapi.web.docs.build_openapi`), so apps carry no docs routes.
    """
    settings = get_settings()
    app = FastAPI(title=title, version=__version__, openapi_url=None, docs_url=None, redoc_url=None)
    for router in routers:
        # Flat, not include_router: FastAPI >= 0.160 wraps included routers, and app.routes
        # must list each APIRoute for the template check and the OpenAPI build.
        app.router.routes.extend(router.routes)
    install_error_handlers(app)
    app.add_middleware(CatchAllMiddleware)
    app.add_middleware(BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(AccessLogMiddleware)
    return app
