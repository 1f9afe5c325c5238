"""Size limits: request bodies (before any work) and response payloads (before counting).

A response is measured as Lambda carries it, locally too, so that what fits here fits when deployed:
Mangum's result for an HTTP API (payload v2) event (`statusCode`, `headers`, `body`,
`isBase64Encoded`), the body as text for the media types Mangum passes as text and base64-encoded
for every other, serialised by the Python runtime's JSON encoder (non-ASCII text escaped as \\uXXXX).
Lambda refuses a serialised response over 6,291,556 bytes (its "6 MB"), and API Gateway then
answers 502: the API answers 413 too_large instead, with what to reduce.
"""

from __future__ import annotations

import json

from starlette.responses import Response
from starlette.types import Scope

from fileapi.errors import TooLarge

# The media types the Lambda adapter (Mangum) sends as text, not base64; given to it by web.app, so that what is
# measured here is what it does (Mangum's own default list, version 0.22).
TEXT_MIME_TYPES = (
    "text/",
    "application/json",
    "application/javascript",
    "application/xml",
    "application/vnd.api+json",
    "application/vnd.oai.openapi",
)
# Room for the headers added after the check (X-Quota-Remaining, RateLimit-*, request id).
HEADER_ALLOWANCE_BYTES = 512


def too_large(size: int | None, max_body_bytes: int) -> TooLarge:
    """The 413 of a request body over `max_body_bytes` (`size`: its declared length; None: a streamed body that
    passed the limit), saying how to send a larger file."""
    what = f"{size:,} bytes" if size is not None else "the request body"
    return TooLarge(
        f"{what} is over the limit of {max_body_bytes:,} bytes per request; send a larger file as an "
        "upload: POST /v1/uploads, send the file to the presigned POST it answers, then make this request "
        "with ?upload=<its id> and no body (it runs as an operation; the SDKs do this by themselves)"
    )


def content_length(scope: Scope) -> int | None:
    """The request's Content-Length (None: absent or not a number)."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class PlainText(Response):
    """A text/plain answer over an alphabet JSON writes as itself (printable ASCII without the quote and the
    backslash: Base64, percent-encoding), declared by the route that knows it: its size in the payload is its
    length, quoted, with no scan of its bytes. tests/unit/web/test_payload_size.py holds the converters to it."""

    media_type = "text/plain"


def payload_size(response: Response) -> int:
    """Bytes the response takes as Lambda's serialised result (see the module's docstring)."""
    media_type = response.headers.get("content-type", "")
    data = bytes(response.body)
    text_length = None
    if isinstance(response, PlainText):
        text_length = len(data) + 2
    elif data and any(kind in media_type for kind in TEXT_MIME_TYPES):
        text_length = json_string_length(data)  # None: Mangum sends undecodable "text" base64-encoded
    text = text_length is not None
    body = text_length if text_length is not None else (len(data) + 2) // 3 * 4 + 2
    envelope = {
        "statusCode": response.status_code,
        "body": "",
        "headers": dict(response.headers),
        "isBase64Encoded": not text and bool(data),
    }
    return len(json.dumps(envelope)) - 2 + body + HEADER_ALLOWANCE_BYTES


# The bytes JSON writes as themselves in a string (space to ~, but the quote and the backslash); of the
# others, these take two (\" \\ \b \f \n \r \t) and the other control characters and DEL six (\u00XX).
_AS_THEMSELVES = bytes(byte for byte in range(0x20, 0x7F) if byte not in b'"\\')
_TWO_BYTE_ESCAPES = b'"\\\b\f\n\r\t'


def json_string_length(data: bytes) -> int | None:
    """len(json.dumps(data.decode("utf-8"))), what the runtime's encoder writes for this text, counted without
    writing it (a 5 MB text took tens of milliseconds to encode only to be measured); None when `data` is
    not UTF-8. Non-ASCII characters are escaped as \\uXXXX (one or two of them)."""
    if data.isascii():
        special = data.translate(None, _AS_THEMSELVES)
        six = len(special.translate(None, _TWO_BYTE_ESCAPES))
        return len(data) + 2 + (len(special) - six) + 5 * six
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return len(json.dumps(text))


# What the serialised envelope takes at most beyond its body and headers (keys, status, flag, quoting).
_ENVELOPE_BYTES = 128
# JSON escapes one byte as at most six (\u00XX); base64 takes 4 per 3 (less): six covers both.
_WORST_BYTES_PER_BYTE = 6


def _surely_fits(response: Response, max_response_bytes: int) -> bool:
    """True when even the worst serialisation of the response (every byte escaped) fits: most answers are far
    under the limit, and then the exact measure (a JSON encoding of the envelope) is not needed."""
    headers = sum(len(name) + len(value) + 6 for name, value in response.raw_headers)
    worst = _WORST_BYTES_PER_BYTE * (len(response.body) + headers) + _ENVELOPE_BYTES + HEADER_ALLOWANCE_BYTES
    return worst <= max_response_bytes


def check_response_size(response: Response, *, max_response_bytes: int) -> None:
    """Refuse a response that would not fit the payload limit (413, never a gateway error).

    :raises TooLarge: the message names the size and the limit.
    """
    if _surely_fits(response, max_response_bytes):
        return
    size = payload_size(response)
    if size > max_response_bytes:
        raise TooLarge(
            f"the result would be {size:,} bytes in the response payload (binary base64-encoded, text "
            f"JSON-escaped), over the limit of {max_response_bytes:,}; ask for less (fewer pages, lower "
            "resolution or a smaller input)"
        )
