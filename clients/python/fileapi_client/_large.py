"""Files beyond the synchronous limit: which calls go through an upload, their inputs, and their results.

A call whose request body would be over `LargeFiles.threshold_bytes` is sent as an operation instead: each
input is uploaded to its presigned POST (`POST /v1/uploads`), the endpoint is called with `?upload=<id>`
(202 and an operation), the operation is polled until it ends, and its result files are fetched and put back
together as the synchronous answer (the same `Result` type). This module holds the decisions and the
shapes; the HTTP of it is in `fileapi_client._transfer`.
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fileapi_client._core import ApiError, Operation, Result, is_textual, read_file, request_body

# Lambda's synchronous payload is 6 MB with its base64 overhead: the API takes request bodies up to this size.
SYNC_LIMIT_BYTES = 4_500_000
DEFAULT_WAIT_SECONDS = 900.0
# Without a Retry-After, an operation is polled this often.
DEFAULT_POLL_SECONDS = 2.0
MEDIA_TYPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$")

UploadProgress = Callable[[int, int], None]
StatusProgress = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class LargeFiles:
    """How calls with large files are sent.

    :param threshold_bytes: a call whose request body would be over this many bytes goes through an upload
        and an operation (default 4,500,000, the API's synchronous limit; 0 sends every file call that way).
    :param wait_seconds: how long a call waits for its operation to end before raising OperationTimeout.
    :param on_upload: called with (bytes sent, total bytes) as each input is uploaded.
    :param on_status: called with the operation (its JSON) each time it is polled.
    :param enabled: False sends every call synchronously (a body over the limit is then 413 too_large).
    """

    threshold_bytes: int = SYNC_LIMIT_BYTES
    wait_seconds: float = DEFAULT_WAIT_SECONDS
    on_upload: UploadProgress | None = None
    on_status: StatusProgress | None = None
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.threshold_bytes < 0:
            raise ValueError(f"threshold_bytes must be 0 or more, not {self.threshold_bytes}")
        if self.wait_seconds <= 0:
            raise ValueError(f"wait_seconds must be more than 0, not {self.wait_seconds}")


class OperationTimeout(TimeoutError):
    """The operation was still running after the wait; it goes on: wait for it again with its id."""

    def __init__(self, operation_id: str, waited_seconds: float) -> None:
        super().__init__(
            f"operation {operation_id} was still running after {waited_seconds:.0f} s: "
            f"call wait_operation({operation_id!r}) to keep waiting, or cancel_operation() to stop it"
        )
        self.operation_id = operation_id
        self.waited_seconds = waited_seconds


class OperationCancelled(ApiError):
    """The operation was cancelled (DELETE /v1/operations/{id}) before it ended."""

    code = "cancelled"


@dataclass
class Source:
    """One input to upload: its size, media type and name, and where its bytes are (a path, a seekable file
    object from its current position, or bytes)."""

    size: int
    content_type: str
    filename: str
    path: Path | None = None
    stream: IO[bytes] | None = None
    data: bytes = b""
    start: int = field(default=0, repr=False)

    def open(self) -> IO[bytes]:
        """A binary file object of the input from its start (the caller closes it when it opened a path)."""
        if self.path is not None:
            return self.path.open("rb")
        if self.stream is not None:
            self.stream.seek(self.start)
            return self.stream
        return io.BytesIO(self.data)


class ProgressReader(io.RawIOBase):
    """A view of `size` bytes of `raw` from `start`, reporting (bytes read, size) to `progress` as it is read.

    httpx measures it with seek/tell (the form's Content-Length, which S3 requires) and rewinds it before
    sending, so positions are relative to `start`.
    """

    def __init__(self, raw: IO[bytes], start: int, size: int, progress: UploadProgress | None) -> None:
        super().__init__()
        self.raw, self.start, self.size, self.progress = raw, start, size, progress
        self.position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.position, os.SEEK_END: self.size}[whence]
        self.position = max(0, min(self.size, base + offset))
        self.raw.seek(self.start + self.position)
        return self.position

    def read(self, size: int = -1) -> bytes:
        left = self.size - self.position
        chunk = self.raw.read(left if size < 0 else min(size, left))
        self.position += len(chunk)
        if self.progress is not None and chunk:
            self.progress(self.position, self.size)
        return chunk

    def readinto(self, buffer: Any) -> int:
        chunk = self.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def bare_media_type(content_type: str | None) -> str:
    """`content_type` without its parameters (an upload's media type has none)."""
    media = (content_type or "").split(";")[0].strip()
    return media if MEDIA_TYPE.match(media) else "application/octet-stream"


def source_of(value: Any, name: str, content_type: str) -> Source:
    """The upload `Source` of a file input: a path is read from disk as it is sent, a seekable file object from
    where it stands, anything else (bytes, streams of chunks) from memory.

    :raises TypeError: not a file input.
    """
    media = bare_media_type(content_type)
    if isinstance(value, str | os.PathLike):
        path = Path(value)
        return Source(path.stat().st_size, media, path.name or name, path=path)
    if hasattr(value, "read") and hasattr(value, "seek") and _seekable(value):
        start = value.tell()
        size = value.seek(0, os.SEEK_END) - start
        value.seek(start)
        filename = Path(str(getattr(value, "name", name))).name or name
        return Source(size, media, filename, stream=value, start=start)
    data = read_file(value, name)
    return Source(len(data), media, name, data=data)


def _seekable(value: Any) -> bool:
    try:
        return bool(value.seekable())
    except (AttributeError, ValueError, OSError):
        return False


def _rereadable(value: Any) -> bool:
    return isinstance(value, bytes | bytearray | memoryview | str | os.PathLike) or (
        hasattr(value, "read") and hasattr(value, "seek") and _seekable(value)
    )


def buffered(operation: Operation, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with each file input that can be read only once (a stream of chunks, an unseekable file
    object) read into bytes, so that it can be measured and then sent."""
    given = dict(arguments)
    for name in operation.files:
        value = given.get(name)
        if value is None:
            continue
        if isinstance(value, list | tuple):
            given[name] = [item if _rereadable(item) else read_file(item, name) for item in value]
        elif not _rereadable(value):
            given[name] = read_file(value, name)
    return given


def large_sources(operation: Operation, arguments: Mapping[str, Any], threshold_bytes: int) -> list[Source] | None:
    """The inputs to upload when `operation` called with `arguments` would send a body over `threshold_bytes`,
    else None (the call is sent as it is). A file body and pdf/merge's files are uploaded as they are (paths
    streamed from disk); a text or JSON body (with its Base64 files) is uploaded as the body it would be.
    """
    if operation.body == "file":
        source = source_of(arguments["file"], "file", operation.content_type or "")
        return [source] if source.size > threshold_bytes else None
    if operation.body == "multipart":
        sources = []
        for name in operation.fields:
            values = arguments[name] if isinstance(arguments[name], list | tuple) else [arguments[name]]
            sources += [source_of(value, f"{name}-{index}", "") for index, value in enumerate(values, start=1)]
        return sources if sum(source.size for source in sources) > threshold_bytes else None
    if operation.body in ("text", "json", "fields"):
        body = request_body(operation, arguments)
        if body is not None and len(body) > threshold_bytes:
            return [Source(len(body), bare_media_type(operation.content_type), "body", data=body)]
    return None


def operation_files(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The result files of a succeeded operation, in order."""
    results = answer.get("results")
    if results:
        return list(results)
    return [answer["result"]] if answer.get("result") else []


def failure(answer: Mapping[str, Any], headers: Mapping[str, str], errors: Mapping[str, type[ApiError]]) -> ApiError:
    """The ApiError a failed or cancelled operation stands for: the class its code has in the synchronous API
    (its `status` is the one of the GET that reported it, `operation_id` the operation's)."""
    error = answer.get("error") or {}
    code = str(error.get("code") or answer.get("status"))
    message = str(error.get("message") or f"the operation ended {answer.get('status')}")
    error_class = OperationCancelled if answer.get("status") == "cancelled" else errors.get(code, ApiError)
    raised = error_class(message, status=200, code=code, headers=headers)
    raised.operation_id = str(answer.get("id"))
    return raised


def assemble(
    operation: Operation, answer: Mapping[str, Any], contents: list[bytes], headers: Mapping[str, str]
) -> Result[Any]:
    """The synchronous `Result` of `operation` from its succeeded operation `answer` and the `contents` of its
    files (in order): a file answer as bytes or text; a JSON answer as its `details` with each file's Base64
    put back in its `field` (`pdfs[2]`, `pages[0].bytes`, `pngs.favicon-16x16.png`)."""
    files = operation_files(answer)
    details: Any = dict(answer.get("details") or {})
    if operation.result != "json":
        content_type = str(files[0]["contentType"]) if files else ""
        merged = {**headers, **{k.lower(): str(v) for k, v in details.get("headers", {}).items()}}
        merged["content-type"] = content_type
        data: Any = contents[0] if contents else b""
        if operation.result == "text" or (operation.result == "media" and is_textual(content_type)):
            data = data.decode("utf-8")
        return Result(data=data, status=200, content_type=content_type, headers=merged)
    for described, content in zip(files, contents, strict=True):
        path = described.get("field")
        if path:
            put(details, parse_field(str(path), operation.dotted_keys), base64.b64encode(content).decode())
        else:  # details over the API's inline bound come as a file of their own (details.json)
            details = {**details, **_json(content)}
    merged = {**headers, "content-type": "application/json"}
    return Result(data=details, status=200, content_type="application/json", headers=merged)


def _json(content: bytes) -> dict[str, Any]:
    import json

    loaded = json.loads(content)
    return loaded if isinstance(loaded, dict) else {}


def parse_field(path: str, dotted_keys: Iterable[str] = ()) -> list[str | int]:
    """The steps of a field path: `pages[0].bytes` is ["pages", 0, "bytes"]; a key that holds dots (one of
    `dotted_keys`, e.g. favicon-16x16.png) is one step.

    :raises ValueError: a path that is not of this form.
    """
    keys = sorted(dotted_keys, key=len, reverse=True)
    steps: list[str | int] = []
    rest = path
    while rest:
        if rest.startswith("["):
            end = rest.index("]")
            steps.append(int(rest[1:end]))
            rest = rest[end + 1 :]
        else:
            rest = rest.removeprefix(".") if steps else rest
            known = next((key for key in keys if rest.startswith(key) and rest[len(key) :][:1] in ("", ".", "[")), None)
            name = known or re.split(r"[.\[]", rest, maxsplit=1)[0]
            if not name:
                raise ValueError(f"not a field path: {path!r}")
            steps.append(name)
            rest = rest[len(name) :]
    return steps


def put(document: Any, steps: list[str | int], value: Any) -> None:
    """Set `value` at `steps` in `document`, making the objects and lists on the way (lists grow to the index)."""
    target = document
    for step, following in zip(steps, [*steps[1:], None], strict=True):
        empty: Any = [] if isinstance(following, int) else {}
        if following is None:
            empty = value
        if isinstance(step, int):
            while len(target) <= step:
                target.append(None)
            if following is None or target[step] is None:
                target[step] = empty
        else:
            if following is None or step not in target:
                target[step] = empty
        target = target[step]


def next_poll(
    answer: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    operation_id: str,
    deadline: float,
    bound: float,
    now: float,
    errors: Mapping[str, type[ApiError]],
) -> float | None:
    """What a poll's answer means: None when the operation succeeded, else the seconds to wait before the next
    poll (the monotonic `deadline` came from a wait of `bound` seconds; `now` is the monotonic time).

    :raises ApiError: the operation failed or was cancelled (the class of its error code).
    :raises OperationTimeout: still running at the deadline.
    """
    if answer["status"] == "succeeded":
        return None
    if answer["status"] != "running":
        raise failure(answer, headers, errors)
    if deadline - now <= 0:
        raise OperationTimeout(operation_id, bound)
    return poll_delay(headers, deadline - now)


def poll_delay(headers: Mapping[str, str], left_seconds: float) -> float:
    """Seconds to wait before the next poll: the answer's Retry-After (else DEFAULT_POLL_SECONDS), within the
    wait that is left."""
    try:
        wanted = float(headers.get("retry-after", DEFAULT_POLL_SECONDS))
    except ValueError:
        wanted = DEFAULT_POLL_SECONDS
    return max(0.0, min(wanted, left_seconds))
