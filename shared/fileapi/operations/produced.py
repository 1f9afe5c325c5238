"""What an operation's work produced: files in its work folder, and the JSON beside them.

An endpoint's answer becomes files as the operation reports them (`from_response`): a binary or text answer
is one file; in a JSON answer, every string whose schema is `format: byte` (the models' `Base64Text`: split's
pdfs, a favicon set's images, render-page's pages, compress's document) becomes a file of its own, in the
order the answer holds them, and the rest of the JSON is the operation's `details` (kept in its record: details
over MAX_DETAILS_BYTES, e.g. the text of a long PDF, are a file of their own instead, details.json, listed last).
"""

from __future__ import annotations

import base64
import json
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel
    from starlette.responses import Response

# Extensions of the media types the endpoints answer with (mimetypes does not know every one the same way
# on every system).
EXTENSIONS = {
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/avif": ".avif",
    "image/svg+xml": ".svg",
    "image/vnd.microsoft.icon": ".ico",
    "image/x-icon": ".ico",
    "application/json": ".json",
    "text/plain": ".txt",
    "text/html": ".html",
    "text/csv": ".csv",
    "application/octet-stream": ".bin",
}
MAX_DETAILS_BYTES = 64 * 1024
# What a field that became files entirely leaves in the details: nothing.
FILED = object()
# Answer headers that describe the content, not the answer, and so are not the operation's details.
TRANSPORT_HEADERS = frozenset({"content-type", "content-length", "content-disposition"})


@dataclass(frozen=True)
class ProducedFile:
    """A file the work wrote: its path, media type, a name for the client and the answer's field it stands for
    (None: the whole answer)."""

    path: Path
    content_type: str
    name: str
    field: str | None = None


@dataclass(frozen=True)
class Produced:
    """The files, in order, and the details (the JSON answer without its files, or a binary answer's headers)."""

    files: list[ProducedFile]
    details: dict[str, Any] = field(default_factory=dict)


def extension(media_type: str) -> str:
    """The file extension of `media_type` (with its dot; `.bin` when unknown)."""
    bare = media_type.partition(";")[0].strip().lower()
    return EXTENSIONS.get(bare) or mimetypes.guess_extension(bare) or ".bin"


def field_file_name(path: str, media_type: str) -> str:
    """A file name for the answer's field `path`: `pdfs[2]` is pdfs-3.pdf, `pages[0].bytes` pages-1-bytes.png."""
    name = path
    while "[" in name:
        start = name.index("[")
        end = name.index("]", start)
        name = f"{name[:start]}-{int(name[start + 1 : end]) + 1}{name[end + 1 :]}"
    return name.replace(".", "-") + extension(media_type)


def from_response(response: Response, model: type[BaseModel] | None, folder: Path) -> Produced:
    """The files and details of an endpoint's answer (`model`: the route's JSON answer, if any), written into
    `folder`."""
    body = bytes(response.body)
    media_type = response.headers.get("content-type", "application/octet-stream")
    headers = {name: value for name, value in response.headers.items() if name.lower() not in TRANSPORT_HEADERS}
    if model is None or not media_type.startswith("application/json"):
        path = folder / "result"
        path.write_bytes(body)
        details = {"headers": headers} if headers else {}
        return Produced([ProducedFile(path, media_type, "result" + extension(media_type))], details)
    files: list[ProducedFile] = []
    schema = model.model_json_schema(by_alias=True, mode="serialization")
    details = _without_files(json.loads(body), schema, schema.get("$defs", {}), "", folder, files)
    text = json.dumps(details).encode()
    if len(text) <= MAX_DETAILS_BYTES:
        return Produced(files, details)
    path = folder / "details.json"
    path.write_bytes(text)
    return Produced([*files, ProducedFile(path, "application/json", "details.json")])


def _without_files(
    value: Any, schema: dict[str, Any], definitions: dict[str, Any], path: str, folder: Path, files: list[ProducedFile]
) -> Any:
    """`value` with each Base64 string its schema marks `format: byte` written to a file (appended to `files`);
    what remains, or FILED when all of it became files (such a field or list is left out of the details)."""
    schema = _resolved(schema, definitions, value)
    if isinstance(value, str) and schema.get("format") == "byte":
        from fileapi.convert.detect import detect_type

        data = base64.b64decode(value)
        media_type = detect_type(data).mime if data else "application/octet-stream"
        target = folder / f"field-{len(files)}"
        target.write_bytes(data)
        files.append(ProducedFile(target, media_type, field_file_name(path, media_type), path))
        return FILED
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        remaining = {
            name: _without_files(
                item, properties.get(name, {}), definitions, f"{path}.{name}" if path else name, folder, files
            )
            for name, item in value.items()
        }
        kept_fields = {name: item for name, item in remaining.items() if item is not FILED}
        return kept_fields if kept_fields or not value else FILED
    if isinstance(value, list) and value:
        items = schema.get("items", {})
        remaining_items = [
            _without_files(item, items, definitions, f"{path}[{index}]", folder, files)
            for index, item in enumerate(value)
        ]
        kept = [item for item in remaining_items if item is not FILED]
        return kept if kept else FILED
    return value


def _resolved(schema: dict[str, Any], definitions: dict[str, Any], value: Any) -> dict[str, Any]:
    """`schema` with its `$ref` followed, and of an `anyOf` the branch that fits `value` (a nullable field)."""
    if "$ref" in schema:
        schema = definitions.get(schema["$ref"].rsplit("/", 1)[-1], {})
    for branch in schema.get("anyOf", ()):
        branch = _resolved(branch, definitions, value)
        if (branch.get("type") == "string") == isinstance(value, str) and branch.get("type") != "null":
            return branch
    return schema
