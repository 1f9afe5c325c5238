"""The one file of a multipart/form-data request body, read as it streams in, with its form fields.

A bytes-in endpoint takes its input as the raw body or as a form (`curl -F file=@photo.jpg`): the file is
the part with a filename (any field name when there is exactly one), else a plain part named `file`;
every other part is a form field (an option, as in the query string). The body arrives through the
ASGI `receive` it is given, so the request limit (BodyLimitMiddleware) stops it as it streams.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.types import Receive

from fileapi.errors import InvalidInput

FILE_FIELD = "file"
# Options are a handful of short fields; a form with more parts than this is not one of ours.
MAX_PARTS = 64
MAX_FIELD_BYTES = 64 * 1024
_SEND_ONE_FILE = "send the file as raw bytes (--data-binary @file) or as one form part (-F file=@file)"


@dataclass
class _Part:
    name: str = ""
    filename: str | None = None
    content_type: str | None = None
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0


@dataclass(frozen=True)
class FormFile:
    """The file of a form and its other fields.

    :param chunks: the file's bytes, in the pieces they arrived in (joined by whoever reads the body).
    :param size: the file's length in bytes.
    :param content_type: the file part's Content-Type (None when the part gives none).
    :param fields: the other parts as (name, text) pairs, in order.
    """

    chunks: list[bytes]
    size: int
    content_type: str | None
    fields: list[tuple[str, str]]


class _FormReader:
    """python-multipart's callbacks, collecting the parts of one form."""

    def __init__(self) -> None:
        self.parts: list[_Part] = []
        self.ended = False
        self._header_name = b""
        self._header_value = b""
        self._headers: dict[bytes, bytes] = {}

    def on_part_begin(self) -> None:
        if len(self.parts) >= MAX_PARTS:
            raise InvalidInput(f"the form has more than {MAX_PARTS} parts; {_SEND_ONE_FILE} and the options as fields")
        self.parts.append(_Part())
        self._headers = {}

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[self._header_name.strip().lower()] = self._header_value.strip()
        self._header_name = self._header_value = b""

    def on_headers_finished(self) -> None:
        part = self.parts[-1]
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if b"name" not in options:
            raise InvalidInput("a form part has no name (Content-Disposition: form-data; name=...)")
        part.name = _text(options[b"name"], "a form part's name")
        if b"filename" in options:
            part.filename = _text(options[b"filename"], f"the file name of part {shown_name(part.name)}")
        content_type = self._headers.get(b"content-type")
        part.content_type = content_type.decode("latin-1") if content_type else None

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        part = self.parts[-1]
        part.chunks.append(data[start:end])
        part.size += end - start
        if part.filename is None and part.name != FILE_FIELD and part.size > MAX_FIELD_BYTES:
            raise InvalidInput(
                f"form field {shown_name(part.name)} is over {MAX_FIELD_BYTES:,} bytes; a file goes in a part with "
                "a file name (-F file=@file)"
            )

    def on_end(self) -> None:
        self.ended = True


async def read_form_file(content_type: str, receive: Receive) -> FormFile:
    """Read a multipart/form-data body from `receive` and pick its file.

    :param content_type: the request's Content-Type header (with the boundary).
    :param receive: the ASGI receive of the request (bounded by the body limit).
    :raises InvalidInput: not a well-formed form, no file, more than one file, or a field that is not UTF-8.
    :raises TooLarge: from `receive`, as soon as the body passes the limit.
    """
    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise InvalidInput("multipart/form-data without a boundary; let your client set the Content-Type of a form")
    reader = _FormReader()
    callbacks = {
        name: getattr(reader, name)
        for name in (
            "on_part_begin",
            "on_header_field",
            "on_header_value",
            "on_header_end",
            "on_headers_finished",
            "on_part_data",
            "on_end",
        )
    }
    parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
    more_body = True
    try:
        while more_body:
            message = await receive()
            if message["type"] != "http.request":
                raise InvalidInput("the request ended before its form did")
            parser.write(message.get("body", b""))
            more_body = message.get("more_body", False)
        parser.finalize()
    except FormParserError:
        raise InvalidInput("the multipart/form-data body is malformed; " + _SEND_ONE_FILE) from None
    if not reader.ended:
        raise InvalidInput("the multipart/form-data body ends before its closing boundary; " + _SEND_ONE_FILE)
    return _pick_file(reader.parts)


def _pick_file(parts: list[_Part]) -> FormFile:
    files = [part for part in parts if part.filename is not None]
    if len(files) > 1:
        names = ", ".join(shown_name(part.name) for part in files[:5])
        many = f"the form has {len(files)} files (parts {names})"
        raise InvalidInput(f"{many}; this endpoint takes one: {_SEND_ONE_FILE}")
    if not files:
        files = [part for part in parts if part.name == FILE_FIELD][:1]
    if not files:
        raise InvalidInput(f"the form has no file; {_SEND_ONE_FILE}")
    chosen = files[0]
    fields = [
        (part.name, _text(b"".join(part.chunks), f"form field {shown_name(part.name)}"))
        for part in parts
        if part is not chosen
    ]
    return FormFile(chosen.chunks, chosen.size, chosen.content_type, fields)


def shown_name(name: str) -> str:
    """A form field's name as messages quote it (cut short: it is the client's text)."""
    return repr(name if len(name) <= 40 else name[:40] + "...")


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{what} is not UTF-8 text") from None
