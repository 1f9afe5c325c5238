"""Operations function: runs the operations the metered routes queue (SQS-triggered; no HTTP route).

Its code holds every family's app beside this one (functions/Makefile copies them), so that an operation runs
its route's own endpoint (fileapi.operations.generic). Its settings (template.yaml) give conversions minutes
and answers no size limit; its one conversion worker is sized from its memory.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from fileapi.operations.executor import Executor
from fileapi.operations.routes import family_routes
from fileapi.operations.services import get_file_services
from fileapi.settings import get_settings
from fileapi.web.services import get_meter, start_workers

HERE = Path(__file__).resolve().parent


@cache
def executor() -> Executor:
    """The executor over every family's routes (imported on the first message, after this module)."""
    return get_file_services().executor(get_meter(), family_routes(HERE.parent, skip={HERE.name}))


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """An SQS batch of operations: each run to its end; the partial batch response names those to retry."""
    return executor().handle(event)


if get_settings().lambda_memory_mb is not None:
    executor()
    start_workers()  # in the function's init, as the HTTP functions start theirs
