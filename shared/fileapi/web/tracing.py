"""AWS X-Ray tracing with Powertools' Tracer, on in Lambda unless POWERTOOLS_TRACE_DISABLED=true
(the template's TracingEnabled parameter sets both the function's tracing mode and that variable).

Traced: the invocation (not its response: capture_response is off, no content goes to X-Ray),
each DynamoDB call (botocore is the only patched module: patching everything cost ~150 ms more
at init), and each conversion as a `## <converter>` subsegment. Off the Lambda runtime, or when
disabled, nothing is imported and `subsegment` does nothing.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fileapi.settings import get_settings

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer


def tracing_enabled() -> bool:
    return get_settings().tracing


@lru_cache(maxsize=1)
def get_tracer() -> Tracer | None:
    if not tracing_enabled():
        return None
    from aws_lambda_powertools import Tracer

    return Tracer(service=get_settings().service_name, patch_modules=["botocore"])


_NOT_TRACED = contextlib.nullcontext()  # reusable: it holds nothing


def subsegment(name: str) -> contextlib.AbstractContextManager[Any]:
    """An X-Ray subsegment around the block when tracing is on; when off, nothing (and nothing made: every
    conversion enters one)."""
    tracer = get_tracer()
    return _NOT_TRACED if tracer is None else tracer.provider.in_subsegment(name)
