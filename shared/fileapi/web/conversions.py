"""Where a route's conversion runs.

- `isolated`: in one of the process's conversion workers (fileapi.isolation): anything that runs native code
  or super-linear work on the caller's bytes (image codecs, SVG, PDF, barcode reading, Markdown, diff). A
  crash, a runaway or an exhausted address space ends that worker and answers that request alone (413, 422).
- `in_process`: work linear in a body the API already bounds, with no input that makes it long (Base64, URL
  encoding, JSON, CSV, hashes, type detection, word counts, colours): on this thread when the process
  answers one request at a time (a Lambda invocation), else on the thread pool, so the event loop keeps
  answering. A pipe round trip to a worker would cost more than the work. An operation's input, a
  `fileapi.isolation.files.FileInput` of any size, goes to a worker all the same: it is read there, never in the
  process that runs the operation.

Either way the conversion is an X-Ray subsegment `## <converter>` when tracing is on.

Workers are shared by turns between accounts (fileapi.isolation.pool): the metered route names the request's
account with `working_for` once it is admitted, and the seconds its jobs held a worker before being ended for
time are added up there, for the route to charge to the account's rate (fileapi.metering.meter.Meter.hold).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fileapi.convert.payload import response_limit
from fileapi.errors import OutOfTime
from fileapi.isolation.files import has_file_inputs
from fileapi.services import run_in_worker
from fileapi.settings import get_settings
from fileapi.web.invocation import off_the_loop
from fileapi.web.tracing import subsegment

R = TypeVar("R")
# Added to a request's answer when its conversion stopped at the time limit: an operation's is longer (780 s in the
# template's Operations function, FILEAPI_DEADLINE_SECONDS, against a request's 20 s).
AS_AN_OPERATION = (
    "or send the same request with the header `Prefer: respond-async` to run it as an operation, "
    "whose time limit is longer"
)


async def isolated(function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """`function(*args, **kwargs)` in a conversion worker, within the conversion deadline.

    :param function: a module-level function of `fileapi` (a converter).
    :raises ApiError: the converter's refusal, or how the worker ended (fileapi.isolation.pool); for time, with
        AS_AN_OPERATION where operations run.
    """
    with subsegment(f"## {function.__name__}"):
        try:
            return await run_in_worker(function, *args, **kwargs)
        except OutOfTime as stopped:
            if get_settings().operations_queue_url is None:  # no operations here (`fileapi run` without a queue)
                raise
            raise OutOfTime(f"{stopped.message}; {AS_AN_OPERATION}") from None


async def in_process(function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """`function(*args, **kwargs)` in this process, within the response payload limit (in a worker when an
    argument is a file: `isolated`)."""
    if has_file_inputs(args, kwargs):
        return await isolated(function, *args, **kwargs)
    return await off_the_loop(_limited, function, *args, **kwargs)


def _limited(function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    with response_limit(get_settings().max_response_bytes), subsegment(f"## {function.__name__}"):
        return function(*args, **kwargs)
