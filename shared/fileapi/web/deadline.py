"""Every conversion answers within its deadline (FILEAPI_DEADLINE_SECONDS, default 20 s).

The work runs in a worker thread under a time budget. When the deadline passes the request is
answered 500 conversion_failed at once; the thread, which cannot be interrupted inside a C
library, is abandoned and stops at its next `convert.deadline.check()` (its result is dropped and
nothing is counted). API Gateway's own limit is 30 s and the functions' timeout 29 s.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import anyio
import anyio.to_thread

from fileapi.convert.deadline import budget, exceeded_message
from fileapi.convert.payload import response_limit
from fileapi.errors import ConversionFailed
from fileapi.settings import get_settings
from fileapi.web.tracing import subsegment

P = ParamSpec("P")
R = TypeVar("R")


async def within_deadline(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`function(*args, **kwargs)` in a worker thread, answered by the deadline at the latest."""
    settings = get_settings()
    seconds = settings.deadline_seconds

    def run() -> R:
        with (
            budget(seconds),
            response_limit(settings.max_response_bytes),
            subsegment(f"## {getattr(function, '__name__', 'conversion')}"),
        ):
            return function(*args, **kwargs)

    try:
        with anyio.fail_after(seconds):
            return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    except TimeoutError:
        raise ConversionFailed(exceeded_message(seconds)) from None


def with_deadline(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """A synchronous endpoint as a coroutine that runs it `within_deadline` (same signature)."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint

    @functools.wraps(endpoint)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await within_deadline(endpoint, *args, **kwargs)

    wrapped: Callable[..., Coroutine[Any, Any, Any]] = run
    return wrapped
