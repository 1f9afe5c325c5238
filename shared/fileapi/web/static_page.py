"""A page the Health function serves with its own files (the interactive reference at /docs, the usage page at
/usage), built the same way.

Every file is read on its first request and kept for the life of the process. Asset URLs carry the hash of every
asset of the page (`?v=`), so they are cached for a year; the page itself is revalidated on every visit. Nothing
is fetched from elsewhere: the page's Content-Security-Policy lets it load and call only its own origin.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from string import Template

from starlette.responses import Response

ASSET_MAX_AGE_SECONDS = 365 * 24 * 3600  # an asset URL names its content (?v=): a changed file gets a new URL
JAVASCRIPT = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
# Everything from this origin only; `data:` for inline icons, `blob:` for images the API answers with (the
# interactive reference shows them from a blob URL).
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

Endpoint = Callable[[], Awaitable[Response]]


@dataclass(frozen=True)
class Asset:
    """A file a page loads: its name in `folder` (a function: the folder may be found only when first read) and
    its media type."""

    name: str
    media_type: str
    folder: Callable[[], Path]

    def read(self) -> bytes:
        return (self.folder() / self.name).read_bytes()


class StaticPage:
    """The page at `path`: `index` (a `string.Template` whose `$version` is the assets' hash) and its `assets`
    by URL path."""

    def __init__(self, path: str, index: Path, assets: dict[str, Asset]) -> None:
        self.path = path
        self.index = index
        self.assets = assets
        self._read: dict[str, bytes] = {}

    def asset_bytes(self, path: str) -> bytes:
        """The content of the asset at `path` (a key of `assets`), read once."""
        if path not in self._read:
            self._read[path] = self.assets[path].read()
        return self._read[path]

    @cached_property
    def version(self) -> str:
        """16 hex digits of the SHA-256 over every asset: the `?v=` of their URLs."""
        digest = hashlib.sha256()
        for path in self.assets:
            digest.update(self.asset_bytes(path))
        return digest.hexdigest()[:16]

    @cached_property
    def html(self) -> bytes:
        """The page, its asset URLs versioned."""
        return Template(self.index.read_text(encoding="utf-8")).substitute(version=self.version).encode()

    def routes(self) -> dict[str, Endpoint]:
        """Every GET route of the page by path: the page and its assets."""
        name = self.path.strip("/").replace("/", "_")

        async def page() -> Response:
            headers = {**SECURITY_HEADERS, "Cache-Control": "no-cache"}
            return Response(self.html, media_type="text/html; charset=utf-8", headers=headers)

        page.__name__ = page.__qualname__ = f"{name}_page"
        return {self.path: page, **{path: self._asset_endpoint(name, path) for path in self.assets}}

    def _asset_endpoint(self, name: str, path: str) -> Endpoint:
        async def asset() -> Response:
            cache = f"public, max-age={ASSET_MAX_AGE_SECONDS}, immutable"
            headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": cache}
            return Response(self.asset_bytes(path), media_type=self.assets[path].media_type, headers=headers)

        file = path.rsplit("/", 1)[1].replace("-", "_").replace(".", "_")
        asset.__name__ = asset.__qualname__ = f"{name}_{file}"
        return asset
