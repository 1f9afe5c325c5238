"""Every conversion answers within its deadline (FILEAPI_DEADLINE_SECONDS, default 20 s).

The work runs in a worker thread under a time budget. When the deadline passes the request is
answered 500 conversion_failed at once; the thread, which cannot be interrupted inside a C
library, is abandoned and stops at its next `convert.deadline.check()` (its result is dropped and
nothing is counted). API Gateway's own limit is 30 s and the functions' timeout 29 s.

One hop to the worker thread per request: the metering layer passes its admission as `before`, so
that the store's write and the conversion share it (web.metering). The hop is asyncio's own
(`run_in_executor` with the caller's context, under `asyncio.timeout`), cheaper than anyio's
worker-thread call under a cancel scope; `make bench-quick` measures the whole path.

No hop at all for work declared `bounded` (linear in a body the API already bounds, with no input that can
make it run long: Base64, JSON, CSV, hashes...) while the process answers one request at a time, as a
Lambda invocation does (web.invocation, entered by web.app's handler): nothing else waits on the
event loop, and the work cannot outlast the deadline, so it runs on the loop's own thread. `fileapi serve`
answers many requests at once and keeps every conversion in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from fileapi.convert.deadline import budget, exceeded_message
from fileapi.convert.payload import response_limit
from fileapi.errors import ConversionFailed
from fileapi.settings import get_settings
from fileapi.web.invocation import alone
from fileapi.web.tracing import subsegment

P = ParamSpec("P")
R = TypeVar("R")

# As many conversions at once as anyio's default thread limiter allowed (a process serves one request at
# a time in Lambda; `fileapi serve` serves many). Abandoned threads hold their worker until they stop.
MAX_WORKER_THREADS = 40
_workers = ThreadPoolExecutor(max_workers=MAX_WORKER_THREADS, thread_name_prefix="conversion")
_BOUNDED = "__fileapi_bounded_work__"


def bounded(endpoint: Callable[P, R]) -> Callable[P, R]:
    """Declare a synchronous endpoint's work bounded: linear in its (size-limited) body, never long whatever
    the input. It then runs inline when the process answers one request at a time (see the module's docstring)."""
    setattr(endpoint, _BOUNDED, True)
    return endpoint


async def within_deadline(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`function(*args, **kwargs)` in a worker thread, answered by the deadline at the latest."""
    return await _in_worker(None, function, *args, **kwargs)


async def _in_worker(
    before: Callable[[], None] | None, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    settings = get_settings()
    seconds = settings.deadline_seconds

    def run() -> R:
        if before is not None:
            before()
        with (
            budget(seconds),
            response_limit(settings.max_response_bytes),
            subsegment(f"## {getattr(function, '__name__', 'conversion')}"),
        ):
            return function(*args, **kwargs)

    if alone() and getattr(function, _BOUNDED, False):
        return run()
    context = contextvars.copy_context()
    future = asyncio.get_running_loop().run_in_executor(_workers, context.run, run)
    try:
        async with asyncio.timeout(seconds):
            return await future
    except TimeoutError:
        raise ConversionFailed(exceeded_message(seconds)) from None


def with_deadline(endpoint: Callable[..., Any], *, before: Callable[[], None] | None = None) -> Callable[..., Any]:
    """A synchronous endpoint as a coroutine that runs it `within_deadline` (same signature), with `before()`
    first in the same worker thread when given (an asynchronous endpoint is returned as it is)."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint

    @functools.wraps(endpoint)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return await _in_worker(before, endpoint, *args, **kwargs)

    wrapped: Callable[..., Coroutine[Any, Any, Any]] = run
    return wrapped
