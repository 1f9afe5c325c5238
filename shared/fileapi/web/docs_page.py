"""The interactive reference (GET /docs): Swagger UI over /openapi.json, served with its own files.

Swagger UI's two files come from the pinned `fastapi-offline` package (layers/requirements.txt), found
without importing it (its package imports FastAPI, which alone is over the Health function's cold-start
budget); the page's own files are in `fileapi/docs_page/`. Every file is read on its first request and kept
for the life of the process. Nothing is fetched from elsewhere, so the page works offline: its
Content-Security-Policy lets it load and call only its own origin (images from answers are `blob:` URLs).

Asset URLs carry the hash of every asset (`?v=`), so they are cached for a year; the page itself is
revalidated on every visit. `/docs/` and `/redoc` redirect permanently to `/docs`, `/` temporarily (the
root may serve something else one day).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template

from starlette.responses import RedirectResponse, Response

PAGE_PATH = "/docs"
OWN_FILES = Path(__file__).resolve().parent.parent / "docs_page"
SWAGGER_UI_PACKAGE = "fastapi_offline"  # its static/ folder: Swagger UI's bundle and stylesheet
ASSET_MAX_AGE_SECONDS = 365 * 24 * 3600  # an asset URL names its content (?v=): a changed file gets a new URL
JAVASCRIPT = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
# Everything from this origin only; `data:` for the stylesheet's inline icons, `blob:` for images the API
# answers with (Swagger UI shows them from a blob URL).
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
# Where the other paths a newcomer tries for the page send them, with the redirect's status.
REDIRECTS = {"/docs/": 308, "/redoc": 308, "/": 307}

Endpoint = Callable[[], Awaitable[Response]]


@dataclass(frozen=True)
class Asset:
    """A file the page loads: its name, its media type, and whether it is the page's own or Swagger UI's."""

    name: str
    media_type: str
    own: bool = False

    def read(self) -> bytes:
        return ((OWN_FILES if self.own else swagger_ui_folder()) / self.name).read_bytes()


ASSETS = {
    "/docs/swagger-ui-bundle.js": Asset("swagger-ui-bundle.js", JAVASCRIPT),
    "/docs/swagger-ui.css": Asset("swagger-ui.css", CSS),
    "/docs/page.js": Asset("page.js", JAVASCRIPT, own=True),
    "/docs/page.css": Asset("page.css", CSS, own=True),
}


def swagger_ui_folder() -> Path:
    """The folder of Swagger UI's files in the installed `fastapi-offline` (its package is not imported).

    :raises RuntimeError: the package is not installed.
    """
    spec = importlib.util.find_spec(SWAGGER_UI_PACKAGE)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"{SWAGGER_UI_PACKAGE} is not installed: it is in layers/requirements.txt")
    return Path(spec.origin).parent / "static"


@lru_cache(maxsize=len(ASSETS))
def asset_bytes(path: str) -> bytes:
    """The content of the asset at `path` (a key of ASSETS), read once."""
    return ASSETS[path].read()


@lru_cache(maxsize=1)
def assets_version() -> str:
    """16 hex digits of the SHA-256 over every asset: the `?v=` of their URLs."""
    digest = hashlib.sha256()
    for path in ASSETS:
        digest.update(asset_bytes(path))
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def page_html() -> bytes:
    """The page, its asset URLs versioned."""
    template = Template((OWN_FILES / "index.html").read_text(encoding="utf-8"))
    return template.substitute(version=assets_version()).encode()


async def docs_page() -> Response:
    """The interactive reference: authorize with a key, then send requests from the page. No key needed to
    load it."""
    headers = {**SECURITY_HEADERS, "Cache-Control": "no-cache"}
    return Response(page_html(), media_type="text/html; charset=utf-8", headers=headers)


def _asset_endpoint(path: str) -> Endpoint:
    async def asset() -> Response:
        cache = f"public, max-age={ASSET_MAX_AGE_SECONDS}, immutable"
        headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": cache}
        return Response(asset_bytes(path), media_type=ASSETS[path].media_type, headers=headers)

    asset.__name__ = asset.__qualname__ = "docs_" + path.rsplit("/", 1)[1].replace("-", "_").replace(".", "_")
    return asset


def _redirect_endpoint(path: str, status: int) -> Endpoint:
    async def redirect() -> Response:
        return RedirectResponse(PAGE_PATH, status_code=status)

    redirect.__name__ = redirect.__qualname__ = "redirect_" + (path.strip("/").replace("/", "_") or "root")
    return redirect


def page_routes() -> dict[str, Endpoint]:
    """Every GET route of the page by path: the page, its assets and the redirects to it."""
    routes: dict[str, Endpoint] = {PAGE_PATH: docs_page}
    routes.update({path: _asset_endpoint(path) for path in ASSETS})
    routes.update({path: _redirect_endpoint(path, status) for path, status in REDIRECTS.items()})
    return routes
