"""Size limits: request bodies (before any work) and response payloads (before counting)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fileapi.errors import TooLarge
from fileapi.web.errors import error_response

# Content types that API Gateway and Mangum carry as text; everything else travels base64-encoded.
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "image/svg+xml")


class BodyLimitMiddleware:
    """Answers 413 too_large for a body over `max_body_bytes`: at once from Content-Length,
    or as soon as a streamed body passes the limit."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await error_response(self._too_large(declared))(scope, receive, send)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    raise self._too_large(None)
            return message

        await self.app(scope, limited_receive, send)

    def _too_large(self, size: int | None) -> TooLarge:
        what = f"{size:,} bytes" if size is not None else "the request body"
        return TooLarge(f"{what} is over the limit of {self.max_body_bytes:,} bytes per request")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def payload_size(response: Response) -> int:
    """Bytes the response takes in a Lambda payload: text as is, binary base64-encoded."""
    body_length = len(response.body)
    media_type = (response.media_type or response.headers.get("content-type", "")).lower()
    if media_type.startswith(_TEXT_TYPES):
        return body_length
    return (body_length + 2) // 3 * 4


def check_response_size(response: Response, *, max_response_bytes: int) -> None:
    """Refuse a response that would not fit the payload limit (413, never a gateway error).

    :raises TooLarge: the message names the size and the limit.
    """
    size = payload_size(response)
    if size > max_response_bytes:
        raise TooLarge(
            f"the result would be {size:,} bytes in the response payload, over the limit of "
            f"{max_response_bytes:,}; ask for less (fewer pages, lower resolution or a smaller input)"
        )
