"""The raw request body of the bytes-in endpoints, and the text of the text-in ones."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from fileapi.errors import InvalidInput

# Said in the OpenAPI description of every text-in body (fileapi.web.docs.raw_body).
JSON_STRING_NOTE = (
    "A JSON string sent as application/json (or an application/*+json type) is taken as its text (its quotes are"
    " not part of it)."
)


async def read_body(request: Request) -> bytes:
    """The raw request body (already bounded by BodyLimitMiddleware)."""
    return await request.body()


def is_json(content_type: str) -> bool:
    """Whether a Content-Type labels JSON, by FastAPI's rule for JSON bodies: `application/json` or a
    `application/*+json` type, any parameters and letter case."""
    media_type = content_type.partition(";")[0].strip().lower()
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


async def read_text_body(request: Request) -> bytes:
    """The text of a text-in endpoint: the body, or, labelled as JSON (`is_json`), the one JSON string it holds."""
    body = await request.body()
    return text_of_json(body) if is_json(request.headers.get("content-type", "")) else body


def text_of_json(body: bytes) -> bytes:
    """The UTF-8 text of a body labelled as JSON: a JSON string's value; a body that is not JSON at all is the
    text itself (a wrong label).

    :raises InvalidInput: JSON other than a string (an object, an array, a number...).
    """
    try:
        value = json.loads(body)
    except ValueError:
        return body
    except RecursionError:  # arrays or objects nested past the decoder's depth: not a string either
        value = [] if body.lstrip()[:1] == b"[" else {}
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    raise InvalidInput(
        f"this endpoint takes text, and the body is a JSON {_json_type(value)}: send the text itself "
        "(-H 'Content-Type: text/plain' --data-binary @file.txt) or one JSON string"
    )


def _json_type(value: object) -> str:
    names = {dict: "object", list: "array", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), "value")


@dataclass(frozen=True)
class BodyReader:
    """Marks a parameter that takes the request body through `read` (fileapi.web.binding binds it; FastAPI
    documents it through the `Depends` beside it)."""

    read: Callable[[Request], Awaitable[bytes]]
    text: bool  # the body is text (a JSON string counts as its text)


RAW = BodyReader(read_body, text=False)
TEXT = BodyReader(read_text_body, text=True)
RawBody = Annotated[bytes, Depends(read_body), RAW]
TextBody = Annotated[bytes, Depends(read_text_body), TEXT]
