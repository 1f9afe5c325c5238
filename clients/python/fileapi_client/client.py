"""FileApi (httpx, blocking) and AsyncFileApi (httpx, asyncio): one method per API operation."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

import httpx

from fileapi_client._core import (
    DEFAULT_BASE_URL,
    USER_AGENT,
    ApiError,
    Operation,
    PreparedRequest,
    Result,
    RetryPolicy,
    is_success,
    prepare,
    result_from,
)
from fileapi_client._generated import OPERATIONS, AsyncFileApiOperations, FileApiOperations
from fileapi_client._large import LargeFiles, Source, buffered, large_sources
from fileapi_client._transfer import AsyncTransfer, Transfer
from fileapi_client.pipeline import Pipeline

DEFAULT_TIMEOUT = 60.0


def _settings(base_url: str | None, api_key: str | None) -> tuple[str, str | None]:
    url = (base_url or os.environ.get("FILEAPI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return url, api_key if api_key is not None else os.environ.get("FILEAPI_API_KEY")


def _large_sources(
    large_files: LargeFiles, operation_id: str, arguments: Mapping[str, Any]
) -> tuple[Operation, dict[str, Any], list[Source] | None]:
    """The operation, its arguments (streams read once) and the inputs to upload when the call is large."""
    operation = OPERATIONS[operation_id]
    if not (large_files.enabled and operation.auth and operation.body != "none"):
        return operation, dict(arguments), None
    given = buffered(operation, arguments)
    return operation, given, large_sources(operation, given, large_files.threshold_bytes)


def _request_options(request: PreparedRequest, api_key: str | None) -> dict[str, Any]:
    """httpx arguments of one request; the key goes only to the operations that need one."""
    headers = dict(request.headers)
    if request.auth and api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    options: dict[str, Any] = {"params": request.params, "headers": headers}
    if request.files is not None:
        options["files"] = request.files
    elif request.content is not None:
        options["content"] = request.content
    return options


class FileApi(Transfer, FileApiOperations):
    """A blocking client of the File and Data Utility API.

    api_key defaults to FILEAPI_API_KEY and base_url to FILEAPI_BASE_URL (else http://127.0.0.1:3000,
    where `make run` serves). Calls that are answered 429 rate_limited are retried after Retry-After
    (see RetryPolicy; `retry=RetryPolicy(enabled=False)` switches it off). Every other error raises
    the ApiError subclass of its code, e.g. `fileapi_client.errors.InvalidInput`.

    A call whose request body would be over `large_files.threshold_bytes` (default 4,500,000, the API's
    synchronous limit) goes through an upload and an operation, and answers as the synchronous call does
    (see LargeFiles for the wait and the progress callbacks; upload_file, submit_operation, wait_operation,
    operation_result and cancel_operation do it step by step).
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        large_files: LargeFiles | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.base_url, self.api_key = _settings(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self.large_files = large_files or LargeFiles()
        self._owns_client = http_client is None
        self._http = http_client or httpx.Client(
            base_url=self.base_url, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )

    def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        operation, given, sources = _large_sources(self.large_files, operation_id, arguments)
        if sources is not None:
            return self._call_large(operation, given, sources)
        request = prepare(operation, given)
        options = _request_options(request, self.api_key)
        response = self._send(
            request.method,
            self.base_url + request.path,
            succeeded=lambda answer: is_success(operation, answer),
            **options,
        )
        return result_from(operation, response)

    def pipeline(self) -> Pipeline:
        """A pipeline to build: `.input(path_or_url).then("pdf/merge").then("pdf/compress", imageMaxSide=2000)`,
        then `.run()` (fileapi_client.pipeline)."""
        return Pipeline(self)

    def close(self) -> None:
        if self._owns_client:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


class AsyncFileApi(AsyncTransfer, AsyncFileApiOperations):
    """The asyncio client: the same methods as FileApi, as coroutines."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        large_files: LargeFiles | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url, self.api_key = _settings(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self.large_files = large_files or LargeFiles()
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )

    async def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        operation, given, sources = _large_sources(self.large_files, operation_id, arguments)
        if sources is not None:
            return await self._call_large(operation, given, sources)
        request = prepare(operation, given)
        options = _request_options(request, self.api_key)
        response = await self._send(
            request.method,
            self.base_url + request.path,
            succeeded=lambda answer: is_success(operation, answer),
            **options,
        )
        return result_from(operation, response)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.aclose()


__all__ = ["ApiError", "AsyncFileApi", "FileApi"]
