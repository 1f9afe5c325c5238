"""What a conversion yields, in one shape for every caller: files, details and headers.

The synchronous route answers an `Outcome` (one file as the body, or a JSON object with the files inline as
Base64); an operation stores its files and keeps its details; a pipeline stage hands its files to the next.
A converter returns its own result (bytes, a dataclass); the declaration turns it into an `Outcome`
(`Conversion.outcome`), by what the conversion gives or by its own `unpack` where files sit inside a JSON answer.
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Extensions of the media types conversions give (mimetypes does not know every one the same way on every system).
EXTENSIONS = {
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/avif": ".avif",
    "image/jxl": ".jxl",
    "image/svg+xml": ".svg",
    "image/vnd.microsoft.icon": ".ico",
    "image/x-icon": ".ico",
    "application/json": ".json",
    "text/plain": ".txt",
    "text/html": ".html",
    "text/csv": ".csv",
    "application/octet-stream": ".bin",
}

Field = tuple[str | int, ...]
"""Where a file sits in a JSON answer: keys and list positions, e.g. ("pages", 0, "bytes")."""


@dataclass(frozen=True)
class OutFile:
    """One file a conversion gave: in memory (`data`) or written to disk (`path`, by a converter over files).

    :param field: where it sits in the JSON answer; None: it is the whole answer.
    """

    media_type: str
    name: str
    field: Field | None = None
    data: bytes | None = None
    path: str | None = None

    def read(self) -> bytes:
        """The file's bytes (read from disk when it was written there)."""
        if self.data is not None:
            return self.data
        assert self.path is not None
        with open(self.path, "rb") as source:
            return source.read()


@dataclass(frozen=True)
class Outcome:
    """Files, in order; details (the JSON answer without its files: a dict of wire names, or an object the
    answer's model reads); headers (for a one-file answer: e.g. X-Animation)."""

    files: tuple[OutFile, ...] = ()
    details: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)


def extension(media_type: str) -> str:
    """The file extension of `media_type` (with its dot; `.bin` when unknown)."""
    bare = media_type.partition(";")[0].strip().lower()
    return EXTENSIONS.get(bare) or mimetypes.guess_extension(bare) or ".bin"


def field_text(where: Field) -> str:
    """`where` as operations show it: `pdfs[2]`, `pages[0].bytes`, `pngs.favicon-32x32.png`."""
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def field_file_name(where: Field, media_type: str) -> str:
    """A file name for the answer's field `where`: ("pdfs", 2) is pdfs-3.pdf, ("pages", 0, "bytes")
    pages-1-bytes.png."""
    parts = [str(part + 1) if isinstance(part, int) else part.replace(".", "-") for part in where]
    return "-".join(parts) + extension(media_type)


def one_file(data: bytes, media_type: str, headers: Mapping[str, str] | None = None) -> Outcome:
    """An outcome of one file, the whole answer."""
    return Outcome((OutFile(media_type, "result" + extension(media_type), data=data),), headers=headers or {})


def file_at(where: Field, data: bytes, media_type: str) -> OutFile:
    """A file that sits at `where` in the JSON answer."""
    return OutFile(media_type, field_file_name(where, media_type), where, data=data)


def inline_files(outcome: Outcome) -> dict[str, Any]:
    """The JSON answer of an outcome whose files sit in it: its details with each file at its field, Base64."""
    answer: Any = _copied(outcome.details or {})
    for made in outcome.files:
        assert made.field is not None, "a JSON answer's file names its field"
        _place(answer, made.field, base64.b64encode(made.read()).decode("ascii"))
    return dict(answer)


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _place(container: Any, where: Sequence[str | int], value: Any) -> None:
    """Put `value` at `where` inside `container`, making the dicts and lists on the way."""
    *parents, last = where
    for position, part in enumerate(parents):
        following = where[position + 1]
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            while len(container) <= part:
                container.append(None)
            if container[part] is None:
                container[part] = empty
        elif part not in container:
            container[part] = empty
        container = container[part]
    if isinstance(last, int):
        while len(container) <= last:
            container.append(None)
    container[last] = value
