"""Operations function: runs the operations the metered routes queue (SQS-triggered; no HTTP route).

Each operation runs its conversion as the catalogue declares it (fileapi.operations.conversions), in this
function's conversion workers: no family's app is imported. Its settings (template.yaml) give conversions
minutes and answers no size limit; its one conversion worker is sized from its memory.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fileapi.catalogue.registry import FAMILIES, worker_modules
from fileapi.operations.executor import Executor
from fileapi.services import get_file_services, get_meter, preload_in_workers, run_in_worker, start_workers
from fileapi.settings import get_settings


@cache
def executor() -> Executor:
    """The executor of queued operations (built on the first message, or in the function's init)."""
    return get_file_services().executor(get_meter(), run_in_worker)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """An SQS batch of operations: each run to its end; the partial batch response names those to retry."""
    return executor().handle(event)


# Its workers import every family's converters and their libraries before their first job.
for family in FAMILIES:
    preload_in_workers(*worker_modules(family))
if get_settings().lambda_memory_mb is not None:
    executor()
    start_workers()  # in the function's init, as the HTTP functions start theirs
