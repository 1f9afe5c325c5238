"""The interactive reference (GET /docs): Swagger UI over /openapi.json, served with its own files
(fileapi.web.static_page: versioned, cached, its own origin only; images from answers are `blob:` URLs).

Swagger UI's two files come from the pinned `fastapi-offline` package (layers/requirements.txt), found
without importing it (its package imports FastAPI, which alone is over the Health function's cold-start
budget); the page's own files are in `fileapi/docs_page/`. `/docs/` and `/redoc` redirect permanently to
`/docs`, `/` temporarily (the root may serve something else one day).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from starlette.responses import RedirectResponse, Response

from fileapi.web.static_page import CONTENT_SECURITY_POLICY, CSS, JAVASCRIPT, Asset, Endpoint, StaticPage

__all__ = [
    "ASSETS",
    "CONTENT_SECURITY_POLICY",
    "OWN_FILES",
    "PAGE_PATH",
    "REDIRECTS",
    "asset_bytes",
    "page_routes",
    "swagger_ui_folder",
]

PAGE_PATH = "/docs"
OWN_FILES = Path(__file__).resolve().parent.parent / "docs_page"
SWAGGER_UI_PACKAGE = "fastapi_offline"  # its static/ folder: Swagger UI's bundle and stylesheet
# Where the other paths a newcomer tries for the page send them, with the redirect's status.
REDIRECTS = {"/docs/": 308, "/redoc": 308, "/": 307}


def swagger_ui_folder() -> Path:
    """The folder of Swagger UI's files in the installed `fastapi-offline` (its package is not imported).

    :raises RuntimeError: the package is not installed.
    """
    spec = importlib.util.find_spec(SWAGGER_UI_PACKAGE)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"{SWAGGER_UI_PACKAGE} is not installed: it is in layers/requirements.txt")
    return Path(spec.origin).parent / "static"


def _own_files() -> Path:
    return OWN_FILES


ASSETS = {
    "/docs/swagger-ui-bundle.js": Asset("swagger-ui-bundle.js", JAVASCRIPT, swagger_ui_folder),
    "/docs/swagger-ui.css": Asset("swagger-ui.css", CSS, swagger_ui_folder),
    "/docs/page.js": Asset("page.js", JAVASCRIPT, _own_files),
    "/docs/page.css": Asset("page.css", CSS, _own_files),
}
PAGE = StaticPage(PAGE_PATH, OWN_FILES / "index.html", ASSETS)


def asset_bytes(path: str) -> bytes:
    """The content of the asset at `path` (a key of ASSETS), read once."""
    return PAGE.asset_bytes(path)


def _redirect_endpoint(path: str, status: int) -> Endpoint:
    async def redirect() -> Response:
        return RedirectResponse(PAGE_PATH, status_code=status)

    redirect.__name__ = redirect.__qualname__ = "redirect_" + (path.strip("/").replace("/", "_") or "root")
    return redirect


def page_routes() -> dict[str, Endpoint]:
    """Every GET route of the page by path: the page, its assets and the redirects to it."""
    routes = PAGE.routes()
    routes.update({path: _redirect_endpoint(path, status) for path, status in REDIRECTS.items()})
    return routes
