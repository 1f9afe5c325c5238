"""Typed Python client of the File and Data Utility API (blocking and asyncio, over httpx)."""

from fileapi_client._core import ApiError, FileInput, RateLimitedBase, Result, RetryPolicy, __version__
from fileapi_client._large import LargeFiles, OperationCancelled, OperationTimeout
from fileapi_client.client import AsyncFileApi, FileApi

__all__ = [
    "ApiError",
    "AsyncFileApi",
    "FileApi",
    "FileInput",
    "LargeFiles",
    "OperationCancelled",
    "OperationTimeout",
    "RateLimitedBase",
    "Result",
    "RetryPolicy",
    "__version__",
]
