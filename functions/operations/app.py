"""Operations function: runs the operations queued by the file endpoints (SQS-triggered; no HTTP route)."""

from __future__ import annotations

from typing import Any

from fileapi.operations.services import get_file_services
from fileapi.web.services import get_meter


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """An SQS batch of operations: each run to its end; the partial batch response names those to retry."""
    return get_file_services().executor(get_meter()).handle(event)
