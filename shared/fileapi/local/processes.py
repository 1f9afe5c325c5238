"""Start `fileapi serve` API processes, and `fileapi operations` processes, against a local endpoint (tests and
benchmarks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fileapi.local.dynamo import LOCAL_CREDENTIALS
from fileapi.settings import child_environment


def start_api_server(
    port: int,
    *,
    endpoint: str,
    table: str,
    workers: int = 1,
    log_path: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """A `fileapi serve` process on 127.0.0.1:`port` (with `workers` worker processes) using `table`
    at `endpoint`, logging warnings only (to `log_path` when given), with `env` added to its environment."""
    command = ["serve", "--port", str(port), "--workers", str(workers)]
    return _start(command, endpoint=endpoint, table=table, log_path=log_path, env=env)


def start_operations_process(
    *, endpoint: str, table: str, log_path: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A `fileapi operations` process (the queued operations and webhook deliveries) using `table` at `endpoint`,
    logging warnings only (to `log_path` when given), with `env` added to its environment (its queues, bucket and
    S3 and SQS endpoints)."""
    return _start(["operations"], endpoint=endpoint, table=table, log_path=log_path, env=env)


def _start(
    command: list[str], *, endpoint: str, table: str, log_path: Path | None, env: dict[str, str] | None
) -> subprocess.Popen[bytes]:
    defaults = {
        **LOCAL_CREDENTIALS,
        "FILEAPI_DYNAMODB_ENDPOINT": endpoint,
        "FILEAPI_TABLE": table,
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    environment = child_environment(**{**defaults, **(env or {})})  # `env` overrides the defaults
    output = log_path.open("ab") if log_path is not None else subprocess.DEVNULL
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "fileapi.local.cli", *command],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT if log_path is not None else subprocess.DEVNULL,
        )
    finally:
        if log_path is not None and not isinstance(output, int):
            output.close()
