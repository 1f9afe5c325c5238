"""An operation's work: its route's own endpoint over the stored request, or the route's file-based work.

The generic path rebuilds the synchronous request the operation stands for (its path, query string and body
type; the body from the input file) and calls the route's endpoint through the route's binder: the same
validation, the same converter, the same worker call (fileapi.web.conversions). A body the endpoint takes raw
(or as text) reaches it as a `FileInput`, read only inside the conversion worker, so the process running the
operation never holds a large input; a body the endpoint decodes itself (JSON, a form) is read here, up to
MAX_BUFFERED_BODY_BYTES. The endpoint's answer becomes the operation's files and details
(fileapi.operations.produced).

For the routes of fileapi.operations.file_work, the client's uploads go to the file-based work instead, after
the same binder has validated the same arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from fileapi.errors import TooLarge
from fileapi.isolation.files import FileInput
from fileapi.operations.file_work import FILE_WORK
from fileapi.operations.produced import Produced, from_response
from fileapi.web.io import is_json

if TYPE_CHECKING:
    from pydantic import BaseModel
    from starlette.responses import Response
    from starlette.types import Message

    from fileapi.operations import records
    from fileapi.web.binding import Binder


@dataclass(frozen=True)
class OperationRoute:
    """One route as an operation runs it: its endpoint, binder and JSON answer's model (None: bytes or text)."""

    path: str
    endpoint: Callable[..., Awaitable[Response]]
    binder: Binder
    answer_model: type[BaseModel] | None


# A body the endpoint decodes in the process that runs it (JSON, a multipart form): JSON parsed in Python takes
# several times its size, so such a body is bounded well below the function's memory.
MAX_BUFFERED_BODY_BYTES = 64 * 1024 * 1024


async def produce(route: OperationRoute, stored: records.Request, inputs: list[Path], folder: Path) -> Produced:
    """The files and details of the operation's work over `inputs` (downloaded, in order), written into
    `folder`.

    :raises RequestValidationError: an option the route refuses (it was checked when the operation was
        accepted, so only a route changed since then).
    :raises ApiError: the work's refusal, as the synchronous request would have answered it.
    """
    work = None if stored.inline else FILE_WORK.get(stored.route)
    if work is not None:
        arguments = await route.binder.bind(rebuilt_request(stored), body=FileInput(str(inputs[0])))
        return await work.run(inputs, arguments, folder)
    given: dict[str, Any] = {}
    body = b""
    if inputs and _reads_as_file(route, stored):
        given["body"] = FileInput(str(inputs[0]))
    elif inputs:
        size = inputs[0].stat().st_size
        if size > MAX_BUFFERED_BODY_BYTES:
            raise TooLarge(
                f"{stored.route} reads its whole body in one piece; as an operation it takes at most "
                f"{MAX_BUFFERED_BODY_BYTES // (1024 * 1024)} MiB, and this one is {size:,} bytes"
            )
        body = inputs[0].read_bytes()
    arguments = await route.binder.bind(rebuilt_request(stored, body), **given)
    response = await route.endpoint(**arguments)
    return from_response(response, route.answer_model, folder)


def _reads_as_file(route: OperationRoute, stored: records.Request) -> bool:
    """Whether the endpoint takes the body as it is (raw, or text that is not a JSON string), so that a file
    can stand for it."""
    reader = route.binder.reads
    return reader is not None and not (reader.text and is_json(stored.content_type))


def rebuilt_request(stored: records.Request, body: bytes = b"") -> Request:
    """The synchronous request an operation stands for: POST to its route with its query string, its body's
    media type, and `body`."""
    headers = [(b"content-type", stored.content_type.encode("latin-1"))] if stored.content_type else []
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "scheme": "https",
        "path": stored.route,
        "raw_path": stored.route.encode(),
        "root_path": "",
        "query_string": stored.query.encode(),
        "headers": headers,
        "path_params": {},
        "state": {},
    }
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(scope, receive)
