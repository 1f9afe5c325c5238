"""FileApi (httpx, blocking) and AsyncFileApi (httpx, asyncio): one method per API operation."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

import httpx

from fileapi_client._core import (
    DEFAULT_BASE_URL,
    USER_AGENT,
    ApiError,
    PreparedRequest,
    Result,
    RetryPolicy,
    error_from,
    is_success,
    prepare,
    result_from,
)
from fileapi_client._generated import ERRORS, OPERATIONS, AsyncFileApiOperations, FileApiOperations

DEFAULT_TIMEOUT = 60.0


def _settings(base_url: str | None, api_key: str | None) -> tuple[str, str | None]:
    url = (base_url or os.environ.get("FILEAPI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return url, api_key if api_key is not None else os.environ.get("FILEAPI_API_KEY")


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


class FileApi(FileApiOperations):
    """A blocking client of the File and Data Utility API.

    api_key defaults to FILEAPI_API_KEY and base_url to FILEAPI_BASE_URL (else http://127.0.0.1:3000,
    where `make run` serves). Calls that are answered 429 rate_limited are retried after Retry-After
    (see RetryPolicy; `retry=RetryPolicy(enabled=False)` switches it off). Every other error raises
    the ApiError subclass of its code, e.g. `fileapi_client.errors.InvalidInput`.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.base_url, self.api_key = _settings(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self._owns_client = http_client is None
        self._http = http_client or httpx.Client(
            base_url=self.base_url, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )

    def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        operation = OPERATIONS[operation_id]
        request = prepare(operation, arguments)
        options = _request_options(request, self.api_key)
        attempt = 0
        while True:
            response = self._http.request(request.method, self.base_url + request.path, **options)
            if is_success(operation, response):
                return result_from(operation, response)
            error = error_from(response, ERRORS)
            delay = self.retry.delay(error, attempt)
            if delay is None:
                raise error
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        if self._owns_client:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


class AsyncFileApi(AsyncFileApiOperations):
    """The asyncio client: the same methods as FileApi, as coroutines."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url, self.api_key = _settings(base_url, api_key)
        self.retry = retry or RetryPolicy()
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )

    async def _call(self, operation_id: str, arguments: Mapping[str, Any]) -> Result[Any]:
        operation = OPERATIONS[operation_id]
        request = prepare(operation, arguments)
        options = _request_options(request, self.api_key)
        attempt = 0
        while True:
            response = await self._http.request(request.method, self.base_url + request.path, **options)
            if is_success(operation, response):
                return result_from(operation, response)
            error = error_from(response, ERRORS)
            delay = self.retry.delay(error, attempt)
            if delay is None:
                raise error
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        if self._owns_client:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.aclose()


__all__ = ["ApiError", "AsyncFileApi", "FileApi"]
