"""Requests arrive in bounded time on `fileapi serve` (API Gateway does this in front of Lambda; uvicorn does not).

- A connection must begin a request (its headers complete) within the request seconds of opening or of its
  previous answer, else it is closed: no connection idles or trickles headers for ever (`BoundedH11Protocol`).
  One that sends nothing at all is closed after uvicorn's keep-alive timeout, as between two requests.
- A request's body must have arrived within the request seconds of its headers, else it is answered 408
  `request_timeout` and its connection closed (`BodyDeadline`), whatever the app was doing with it.

The request seconds are FILEAPI_REQUEST_SECONDS (30 by default: API Gateway's own limit for a whole request).
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import TYPE_CHECKING

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from fileapi.errors import InvalidInput, RequestTimeout
from fileapi.settings import get_settings
from fileapi.web.errors import error_response

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyDeadline:
    """ASGI middleware: a request whose body has not fully arrived `seconds` after its headers is answered 408
    (with `Connection: close`, so the server closes the connection), and the app's own answer is dropped."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        arrived = False
        late = False
        started = False

        async def timed_receive() -> Message:
            nonlocal arrived, late
            if arrived or late:
                return await receive()  # the body is in (or given up on): what follows is the disconnect
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                late = True
                return {"type": "http.disconnect"}  # the app stops reading, as when a client goes away
            if message["type"] != "http.request" or not message.get("more_body", False):
                arrived = True
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if late:
                return  # the 408 is the answer
            started = True
            await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except Exception:
            if not late:
                raise
        if late and not started:
            await _request_timeout(self.seconds)(scope, receive, send)


def _request_timeout(seconds: float) -> ASGIApp:
    response = error_response(
        RequestTimeout(
            f"the request's body did not arrive within {seconds:g} s of its headers; send it at once "
            "(for a large or slow file, upload it: POST /v1/uploads)"
        )
    )
    response.headers["Connection"] = "close"
    return response


# A request h11 cannot read: malformed, or its line and headers still incomplete past h11's buffer
# (max_incomplete_event_size, 16 KiB, which uvicorn leaves as it is; API Gateway's quota on them is 10,240 bytes).
UNREADABLE = (
    "the request could not be read as HTTP/1.1: its request line or headers are malformed, or too long; send long "
    "options as form fields of a multipart body, not in the URL"
)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a connection's silence bounded before its first request as after each answer
    (uvicorn's keep-alive timeout), and each request's headers due within the request seconds. A request h11 cannot
    read (malformed, or its head too long) is answered 400 with ApiError JSON, not uvicorn's plain text.
    """

    _no_request: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
        self._expect_request()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self._no_request is not None:
            self._no_request.cancel()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._expect_request()

    def send_400_response(self, msg: str) -> None:
        """The answer to a request h11 could not read (uvicorn's own: `msg` as text/plain): 400 invalid_input as
        ApiError JSON, then the connection closed, as uvicorn does."""
        response = error_response(InvalidInput(UNREADABLE))
        headers = [*response.headers.raw, (b"connection", b"close")]
        for event in (
            h11.Response(
                status_code=response.status_code, headers=headers, reason=HTTPStatus(response.status_code).phrase
            ),
            h11.Data(data=bytes(response.body)),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def _expect_request(self) -> None:
        """Close the connection if no new request has begun within the request seconds from now."""
        if self._no_request is not None:
            self._no_request.cancel()
        seconds = get_settings().request_seconds
        self._no_request = self.loop.call_later(seconds, self._close_if_no_request, self.cycle)

    def _close_if_no_request(self, waiting_since: object) -> None:
        if self.cycle is not waiting_since or self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
