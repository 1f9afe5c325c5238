"""Start `fileapi serve` API processes against a DynamoDB endpoint (tests and benchmarks)."""

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
            [sys.executable, "-m", "fileapi.local.cli", "serve", "--port", str(port), "--workers", str(workers)],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT if log_path is not None else subprocess.DEVNULL,
        )
    finally:
        if log_path is not None and not isinstance(output, int):
            output.close()
