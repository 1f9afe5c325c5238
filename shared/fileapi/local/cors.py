"""CORS on the local server as API Gateway does it for the deployed API, from the template's CorsConfiguration.

Deployed, the HttpApi answers preflights itself (the functions never see them) and adds its CORS headers to
every answer of a request with an Origin it allows; locally this middleware does the same, in front of the
template's routes. The allowed origins are the template's `CorsAllowedOrigins` default (`*`, which no stage
of samconfig.toml overrides) unless FILEAPI_CORS_ALLOWED_ORIGINS gives others (comma-separated, as the
parameter). As in API Gateway: a preflight is an OPTIONS request with Origin and
Access-Control-Request-Method, answered 204; an origin pattern may end in `*` (`https://*`); with `*` the
allowed origin is answered as `*`, otherwise the request's origin is echoed (with Vary: Origin); an origin,
or a preflight's method, that is not allowed gets no CORS headers, which the browser takes as a refusal.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fileapi.local.template import CorsConfiguration


class CorsMiddleware:
    """Preflight answers and CORS response headers of `config` (see the module)."""

    def __init__(self, app: ASGIApp, config: CorsConfiguration) -> None:
        self.app = app
        self.config = config
        self.allowed_methods = {method.upper() for method in config.allow_methods}
        self.preflight_headers = [
            (b"access-control-allow-methods", ",".join(config.allow_methods).encode("latin-1")),
            (b"access-control-allow-headers", ",".join(config.allow_headers).encode("latin-1")),
        ]
        if config.max_age_seconds is not None:
            self.preflight_headers.append((b"access-control-max-age", str(config.max_age_seconds).encode("ascii")))
        self.expose_headers = (
            [(b"access-control-expose-headers", ",".join(config.expose_headers).encode("latin-1"))]
            if config.expose_headers
            else []
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = _header(scope, b"origin") if scope["type"] == "http" else None
        if not origin:
            await self.app(scope, receive, send)
            return
        allowed = self.allowed_origin(origin.decode("latin-1"))
        requested_method = _header(scope, b"access-control-request-method")
        if scope["method"] == "OPTIONS" and requested_method is not None:
            headers: list[tuple[bytes, bytes]] = []
            if allowed is not None and requested_method.decode("latin-1").upper() in self.allowed_methods:
                headers = [*_allow_origin(allowed), *self.preflight_headers]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        added = [*_allow_origin(allowed), *self.expose_headers] if allowed is not None else []

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                # API Gateway ignores CORS headers from the integration: its own replace them
                headers = message.get("headers", [])
                kept = [(name, value) for name, value in headers if not name.startswith(b"access-control-")]
                message["headers"] = [*kept, *added]
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def allowed_origin(self, origin: str) -> str | None:
        """The Access-Control-Allow-Origin value for a request from `origin`; None when it is not allowed."""
        for pattern in self.config.allow_origins:
            if pattern == "*":
                return "*"
            if pattern == origin or (pattern.endswith("*") and origin.startswith(pattern[:-1])):
                return origin
        return None


def _allow_origin(allowed: str) -> list[tuple[bytes, bytes]]:
    headers = [(b"access-control-allow-origin", allowed.encode("latin-1"))]
    return headers if allowed == "*" else [*headers, (b"vary", b"Origin")]


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None
