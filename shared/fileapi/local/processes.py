"""Start `fileapi serve` API processes against a DynamoDB endpoint (tests and benchmarks)."""

from __future__ import annotations

import os
import subprocess
import sys

from fileapi.local.dynamo import LOCAL_CREDENTIALS


def start_api_server(port: int, *, endpoint: str, table: str, workers: int = 1) -> subprocess.Popen[bytes]:
    """A `fileapi serve` process on 127.0.0.1:`port` (with `workers` worker processes) using `table`
    at `endpoint`, logging warnings only."""
    env = {
        **os.environ,
        **LOCAL_CREDENTIALS,
        "FILEAPI_DYNAMODB_ENDPOINT": endpoint,
        "FILEAPI_TABLE": table,
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "fileapi.local.cli", "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
