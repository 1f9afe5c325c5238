"""Opening the configured table: the one DynamoDB table every store of the service keeps its items in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fileapi.storage.table import (
    BUDGET_SECONDS,
    CONNECT_TIMEOUT_SECONDS,
    LOCAL_CONNECT_TIMEOUT_SECONDS,
    READ_TIMEOUT_SECONDS,
    DynamoTable,
    create_client,
)

if TYPE_CHECKING:
    from fileapi.settings import Settings


def open_configured_table(settings: Settings) -> DynamoTable:
    """The settings' table, at their endpoint (None: AWS), with their read timeout."""
    return open_table(
        settings.table_name,
        region=settings.region,
        endpoint_url=settings.dynamodb_endpoint,
        read_timeout=settings.dynamodb_read_timeout,
    )


def open_table(
    table_name: str, *, region: str, endpoint_url: str | None = None, read_timeout: float = READ_TIMEOUT_SECONDS
) -> DynamoTable:
    """The table `table_name` through a new client (endpoint_url: a local endpoint, or None for AWS).

    A longer `read_timeout` than DynamoDB's (for moto's single-threaded local server under load)
    stretches the call budget to fit two attempts, and gives connections LOCAL_CONNECT_TIMEOUT_SECONDS (a
    busy machine can hold a local connection's accept longer than AWS's 0.4 s allowance).
    """
    connect_timeout = CONNECT_TIMEOUT_SECONDS if read_timeout <= READ_TIMEOUT_SECONDS else LOCAL_CONNECT_TIMEOUT_SECONDS
    worst = connect_timeout + read_timeout
    client = create_client(
        region=region, endpoint_url=endpoint_url, read_timeout=read_timeout, connect_timeout=connect_timeout
    )
    return DynamoTable(table_name, client, budget_seconds=max(BUDGET_SECONDS, 2 * worst), attempt_worst_seconds=worst)
