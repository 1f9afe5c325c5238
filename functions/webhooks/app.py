"""Webhooks function: delivers operations' ends to the accounts' endpoints (SQS-triggered; no HTTP route)."""

from __future__ import annotations

from typing import Any

from fileapi.services import get_file_services


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """An SQS batch of deliveries: each attempted, or queued again for its next attempt."""
    return get_file_services().deliverer().handle(event)
