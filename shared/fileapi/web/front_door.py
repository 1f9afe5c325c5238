"""The layer every request enters first: its id, the body limit, the catch-all and the access record, in one pass.

- **Id.** The Lambda request id when there is one, else a random one: in `scope["state"]["request_id"]` (metering
  counts idempotently by it) and in the X-Request-Id header of the answer.
- **Body limit.** A body over `max_body_bytes` is 413 too_large: at once from Content-Length, or as soon as a
  streamed body passes the limit (the receive the app is given raises TooLarge then).
- **Catch-all.** Any exception that escapes the app is answered 500 internal_error and swallowed: Starlette's
  ServerErrorMiddleware would re-raise it to the server, whose log line would carry the exception's message (which
  may quote request content). A client that went away before its body arrived is no error of ours: nothing is
  answered (nobody listens), and its record says so.
- **Access record.** One line per request (fileapi.web.logs.write_access_record): never body content, query values
  or whole keys.

One layer, where these were three: each layer wrapped `receive` or `send` again and awaited one more frame per
message, and the three cost 2.5 us more of a metered request's ~73 (`make bench-quick`, the stack's own cost).
The order of their work is kept: the body limit's 413 and the catch-all's 500 are answered through the access
record's `send`, and an exception from the limit's `receive` reaches the catch-all as it did.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fileapi.web.errors import error_response, unexpected_error
from fileapi.web.limits import content_length, too_large
from fileapi.web.logs import (
    CLIENT_CLOSED_REQUEST,
    CLIENT_DISCONNECTED,
    emit_request_metrics,
    error_code,
    metering_outcome,
    request_id_of,
    write_access_record,
)


class FrontDoor:
    """Request id, body limit, catch-all and access record (see the module).

    :param max_body_bytes: the largest body taken; None: no limit (an answer that reads no body).
    :param emit_metrics: CloudWatch embedded metrics per request too (fileapi.web.logs.emit_request_metrics).
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int | None, emit_metrics: bool = False) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.emit_metrics = emit_metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        started = time.perf_counter()
        record: dict[str, Any] = {"request_id": request_id, "method": scope["method"]}
        tag = (b"x-request-id", request_id.encode())
        limit = self.max_body_bytes
        bytes_in = bytes_out = 0
        status = 500
        answering = False  # the answer has started: no error can be answered any more

        async def counted_receive() -> Message:
            nonlocal bytes_in
            message = await receive()
            if message["type"] == "http.request":
                bytes_in += len(message.get("body", b""))
                if limit is not None and bytes_in > limit:
                    raise too_large(None, limit)
            return message

        async def tagged_send(message: Message) -> None:
            nonlocal status, bytes_out, answering
            if message["type"] == "http.response.start":
                answering = True
                status = message["status"]
                message["headers"] = [*message.get("headers", []), tag]
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                if status >= 400 and bytes_out == 0:
                    code = error_code(body)
                    if code:
                        record["error"] = code
                bytes_out += len(body)
            await send(message)

        try:
            if limit is not None and (declared := content_length(scope)) is not None and declared > limit:
                await error_response(too_large(declared, limit))(scope, receive, tagged_send)
            else:
                await self.app(scope, counted_receive, tagged_send)
        except ClientDisconnect:
            state[CLIENT_DISCONNECTED] = True
        except Exception as exc:
            error = unexpected_error(exc)
            if not answering:
                await error_response(error)(scope, receive, tagged_send)
        finally:
            if state.get(CLIENT_DISCONNECTED):
                status = CLIENT_CLOSED_REQUEST
                record[CLIENT_DISCONNECTED] = True
            record["bytes_in"] = bytes_in
            record["bytes_out"] = bytes_out
            record["status"] = status
            # The matched route's template, never the raw path (an unknown path is the caller's text).
            record["route"] = getattr(scope.get("route"), "path", None) or "(no route)"
            record["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
            if "key_prefix" in state:
                record["key_prefix"] = state["key_prefix"]
            outcome = metering_outcome(state.get("admission"), status, record.get("error"))
            if outcome:
                record["metering"] = outcome
            write_access_record(record)
            if self.emit_metrics:
                emit_request_metrics(record)
