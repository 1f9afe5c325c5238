"""The HTTP of large files: uploads, operations and their result files, for FileApi and AsyncFileApi.

`Transfer` and `AsyncTransfer` are the same steps, blocking and as coroutines: `upload_file` (the presigned
POST, streamed from disk for a path), `submit_operation` (`?upload=`, 202), `wait_operation` (polled as
Retry-After says, within a timeout), `operation_result` (the files fetched, SHA-256 checked, and put back
together as the synchronous answer) and `cancel_operation`. A call whose body is over the client's
`LargeFiles.threshold_bytes` runs them all in turn (`_call_large`).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, cast

import httpx

from fileapi_client._core import ApiError, Operation, Result, RetryPolicy, error_from, query_params, result_from
from fileapi_client._generated import ERRORS, OPERATIONS
from fileapi_client._large import (
    LargeFiles,
    ProgressReader,
    Source,
    StatusProgress,
    UploadProgress,
    assemble,
    next_poll,
    operation_files,
    source_of,
)

UPLOADS_PATH = "/v1/uploads"
OPERATIONS_PATH = "/v1/operations/"
UPLOAD_PARAMETER = "upload"


def operation_for_route(route: str) -> Operation:
    """The operation of the API path `route` (an operation's `route`, e.g. /v1/pdf/split).

    :raises ValueError: a route this client does not know (a newer API: update the client).
    """
    for operation in OPERATIONS.values():
        if operation.path == route and operation.method == "POST":
            return operation
    raise ValueError(f"this client does not know the route {route}: update fileapi-client")


def _upload_request(source: Source) -> dict[str, Any]:
    return {"filename": source.filename, "contentType": source.content_type, "size": source.size}


def _stored(response: httpx.Response, what: str) -> None:
    """:raises ApiError: storage refused the upload's POST or a result's GET (code `storage_error`)."""
    if response.status_code not in (200, 201, 204):
        raise ApiError(
            f"{what} answered {response.status_code}: {response.text[:200]}",
            status=response.status_code,
            code="storage_error",
            headers=response.headers,
        )


def _checked(content: bytes, described: Mapping[str, Any]) -> bytes:
    """:raises ApiError: a result file whose SHA-256 is not the one its operation reports (code `storage_error`)."""
    if hashlib.sha256(content).hexdigest() != described.get("sha256", hashlib.sha256(content).hexdigest()):
        raise ApiError(
            f"the result file {described.get('name')} does not match its SHA-256: fetch it again",
            status=200,
            code="storage_error",
        )
    return content


def below_300(response: httpx.Response) -> bool:
    """A 2xx answer: what the upload, operation and download requests succeed with."""
    return response.status_code < 300


class TransferBase:
    """What both clients hold: the HTTP client, the key, the retry rule and the large-file settings."""

    base_url: str
    api_key: str | None
    retry: RetryPolicy
    large_files: LargeFiles

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = dict(extra or {})
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _submit_options(
        self, operation: Operation, arguments: Mapping[str, Any], upload_ids: Sequence[str], key: str
    ) -> dict[str, Any]:
        params = [*query_params(operation, arguments).items(), *((UPLOAD_PARAMETER, id_) for id_ in upload_ids)]
        return {"params": params, "headers": self._headers({"Idempotency-Key": key})}

    def _over_uploads(self, operation_id: str, upload_ids: Sequence[str]) -> Operation:
        """:raises ValueError: an unknown operation, one that takes no body, or no upload ids."""
        operation = OPERATIONS.get(operation_id)
        if operation is None or operation.body == "none" or not operation.auth:
            raise ValueError(f"{operation_id} is not an operation that takes a file")
        if not upload_ids or isinstance(upload_ids, str):
            raise ValueError("uploads: give a list of upload ids (upl_...), e.g. [api.upload_file(path)]")
        return operation


class Transfer(TransferBase):
    """Uploads and operations over a blocking httpx client."""

    _http: httpx.Client

    def _send(
        self, method: str, url: str, *, succeeded: Callable[[httpx.Response], bool] = below_300, **options: Any
    ) -> httpx.Response:
        """One request, retried on 429 rate_limited as `retry` says, until an answer `succeeded` accepts.

        :raises ApiError: an error answer."""
        attempt = 0
        while True:
            response = self._http.request(method, url, **options)
            if succeeded(response):
                return response
            error = error_from(response, ERRORS)
            delay = self.retry.delay(error, attempt)
            if delay is None:
                raise error
            time.sleep(delay)
            attempt += 1

    def upload_file(
        self,
        file: Any,
        *,
        content_type: str = "application/octet-stream",
        filename: str | None = None,
        on_progress: UploadProgress | None = None,
    ) -> str:
        """Upload a file of any size (up to the plan's upload limit) and return its upload id (upl_...).

        :param file: bytes, a path (read from disk as it is sent), a binary file object or a stream of chunks.
        :param content_type: its media type, e.g. application/pdf.
        :param on_progress: called with (bytes sent, total bytes) as it is sent.
        :raises ApiError: the API refused it (e.g. TooLarge over the plan's limit), or storage did.
        """
        source = source_of(file, filename or "file", content_type)
        return self._upload(source, on_progress or self.large_files.on_upload)

    def _upload(self, source: Source, on_progress: UploadProgress | None) -> str:
        created = self._send(
            "POST", self.base_url + UPLOADS_PATH, json=_upload_request(source), headers=self._headers()
        )
        form = created.json()
        raw = source.open()
        try:
            reader = ProgressReader(raw, source.start, source.size, on_progress)
            posted = self._http.post(
                form["url"],
                data=form["fields"],
                files={"file": (source.filename, cast("IO[bytes]", reader), source.content_type)},
            )
        finally:
            if source.path is not None:
                raw.close()
        _stored(posted, "the upload's POST to storage")
        return str(form["id"])

    def submit_operation(
        self, operation_id: str, uploads: Sequence[str], *, idempotency_key: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """Run the API operation `operation_id` (e.g. "pdf_split") over uploaded files; the operation (202).

        :param uploads: upload ids, in order (one, or pdf_merge's several).
        :param idempotency_key: sent as Idempotency-Key (default: a new UUID); the same key again gives the
            same operation, counted once.
        :param options: the operation's query options, by their API names (e.g. ranges="1-3").
        :raises ApiError: the API refused it (a bad option, an unknown upload...).
        """
        operation = self._over_uploads(operation_id, uploads)
        key = idempotency_key or str(uuid.uuid4())
        url = self.base_url + operation.path
        answer: dict[str, Any] = self._send(
            "POST", url, **self._submit_options(operation, options, uploads, key)
        ).json()
        return answer

    def wait_operation(
        self, operation_id: str, *, wait_seconds: float | None = None, on_status: StatusProgress | None = None
    ) -> dict[str, Any]:
        """The operation once it has succeeded, polled as its Retry-After says.

        :param wait_seconds: how long to wait (default the client's `LargeFiles.wait_seconds`).
        :param on_status: called with the operation each time it is polled.
        :raises OperationTimeout: still running after `wait_seconds` (it goes on; its id is on the error).
        :raises ApiError: it failed (the class of its error code, `operation_id` set) or was cancelled
            (OperationCancelled).
        """
        bound = wait_seconds if wait_seconds is not None else self.large_files.wait_seconds
        report = on_status or self.large_files.on_status
        deadline = time.monotonic() + bound
        while True:
            response = self._send("GET", self.base_url + OPERATIONS_PATH + operation_id, headers=self._headers())
            answer: dict[str, Any] = response.json()
            if report is not None:
                report(answer)
            delay = next_poll(
                answer,
                response.headers,
                operation_id=operation_id,
                deadline=deadline,
                bound=bound,
                now=time.monotonic(),
                errors=ERRORS,
            )
            if delay is None:
                return answer
            time.sleep(delay)

    def download(self, url: str) -> bytes:
        """The file a result link serves. :raises ApiError: storage refused it (e.g. the link expired)."""
        response = self._http.get(url)
        _stored(response, "the result link")
        return response.content

    def operation_result(self, operation: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> Result[Any]:
        """The synchronous answer of a succeeded operation: its files fetched (SHA-256 checked) and put back
        together as the endpoint answers (bytes, text, or its JSON with the files as Base64)."""
        contents = [_checked(self.download(str(item["url"])), item) for item in operation_files(operation)]
        return assemble(operation_for_route(str(operation["route"])), operation, contents, headers or {})

    def cancel_operation(self, operation_id: str) -> None:
        """Cancel a running operation, or delete an ended one with its files. :raises NotFound: no such one."""
        self._send("DELETE", self.base_url + OPERATIONS_PATH + operation_id, headers=self._headers())

    def _call_large(self, operation: Operation, arguments: Mapping[str, Any], sources: list[Source]) -> Result[Any]:
        upload_ids = [self._upload(source, self.large_files.on_upload) for source in sources]
        options = self._submit_options(operation, arguments, upload_ids, str(uuid.uuid4()))
        accepted = self._send("POST", self.base_url + operation.path, **options)
        if accepted.status_code != 202:  # answered at once after all
            return result_from(operation, accepted)
        answer = self.wait_operation(str(accepted.json()["id"]))
        return self.operation_result(answer, accepted.headers)


class AsyncTransfer(TransferBase):
    """Uploads and operations over an asyncio httpx client: the methods of `Transfer`, as coroutines."""

    _http: httpx.AsyncClient

    async def _send(
        self, method: str, url: str, *, succeeded: Callable[[httpx.Response], bool] = below_300, **options: Any
    ) -> httpx.Response:
        attempt = 0
        while True:
            response = await self._http.request(method, url, **options)
            if succeeded(response):
                return response
            error = error_from(response, ERRORS)
            delay = self.retry.delay(error, attempt)
            if delay is None:
                raise error
            await asyncio.sleep(delay)
            attempt += 1

    async def upload_file(
        self,
        file: Any,
        *,
        content_type: str = "application/octet-stream",
        filename: str | None = None,
        on_progress: UploadProgress | None = None,
    ) -> str:
        """Upload a file and return its upload id (see FileApi.upload_file)."""
        source = source_of(file, filename or "file", content_type)
        return await self._upload(source, on_progress or self.large_files.on_upload)

    async def _upload(self, source: Source, on_progress: UploadProgress | None) -> str:
        created = await self._send(
            "POST", self.base_url + UPLOADS_PATH, json=_upload_request(source), headers=self._headers()
        )
        form = created.json()
        raw = source.open()
        try:
            reader = ProgressReader(raw, source.start, source.size, on_progress)
            posted = await self._http.post(
                form["url"],
                data=form["fields"],
                files={"file": (source.filename, cast("IO[bytes]", reader), source.content_type)},
            )
        finally:
            if source.path is not None:
                raw.close()
        _stored(posted, "the upload's POST to storage")
        return str(form["id"])

    async def submit_operation(
        self, operation_id: str, uploads: Sequence[str], *, idempotency_key: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """Run an API operation over uploaded files (see FileApi.submit_operation)."""
        operation = self._over_uploads(operation_id, uploads)
        key = idempotency_key or str(uuid.uuid4())
        response = await self._send(
            "POST", self.base_url + operation.path, **self._submit_options(operation, options, uploads, key)
        )
        answer: dict[str, Any] = response.json()
        return answer

    async def wait_operation(
        self, operation_id: str, *, wait_seconds: float | None = None, on_status: StatusProgress | None = None
    ) -> dict[str, Any]:
        """The operation once it has succeeded (see FileApi.wait_operation)."""
        bound = wait_seconds if wait_seconds is not None else self.large_files.wait_seconds
        report = on_status or self.large_files.on_status
        deadline = time.monotonic() + bound
        while True:
            response = await self._send("GET", self.base_url + OPERATIONS_PATH + operation_id, headers=self._headers())
            answer: dict[str, Any] = response.json()
            if report is not None:
                report(answer)
            delay = next_poll(
                answer,
                response.headers,
                operation_id=operation_id,
                deadline=deadline,
                bound=bound,
                now=time.monotonic(),
                errors=ERRORS,
            )
            if delay is None:
                return answer
            await asyncio.sleep(delay)

    async def download(self, url: str) -> bytes:
        """The file a result link serves (see FileApi.download)."""
        response = await self._http.get(url)
        _stored(response, "the result link")
        return response.content

    async def operation_result(
        self, operation: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> Result[Any]:
        """The synchronous answer of a succeeded operation (see FileApi.operation_result)."""
        contents = [_checked(await self.download(str(item["url"])), item) for item in operation_files(operation)]
        return assemble(operation_for_route(str(operation["route"])), operation, contents, headers or {})

    async def cancel_operation(self, operation_id: str) -> None:
        """Cancel or delete an operation (see FileApi.cancel_operation)."""
        await self._send("DELETE", self.base_url + OPERATIONS_PATH + operation_id, headers=self._headers())

    async def _call_large(
        self, operation: Operation, arguments: Mapping[str, Any], sources: list[Source]
    ) -> Result[Any]:
        upload_ids = [await self._upload(source, self.large_files.on_upload) for source in sources]
        options = self._submit_options(operation, arguments, upload_ids, str(uuid.uuid4()))
        accepted = await self._send("POST", self.base_url + operation.path, **options)
        if accepted.status_code != 202:
            return result_from(operation, accepted)
        answer = await self.wait_operation(str(accepted.json()["id"]))
        return await self.operation_result(answer, accepted.headers)
