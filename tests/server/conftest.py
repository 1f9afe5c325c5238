"""Real server processes: `fileapi serve` API processes against the session's moto server."""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator

import pytest

from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.metering.dynamodb import DynamoStore, create_client, create_table

pytestmark = pytest.mark.server


def wait_for_health(base_url: str, process: subprocess.Popen[bytes], timeout_seconds: float = 30) -> None:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/health", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"{base_url} did not become healthy")


StartServers = Callable[[int], list[str]]


@pytest.fixture()
def server_table(dynamodb_endpoint: str) -> DynamoStore:
    table = f"fileapi-server-{uuid.uuid4().hex[:8]}"
    client = create_client(region="us-east-1", endpoint_url=dynamodb_endpoint)
    create_table(client, table)
    return DynamoStore(table, client)


@pytest.fixture()
def start_servers(dynamodb_endpoint: str, server_table: DynamoStore) -> Iterator[StartServers]:
    """Start API server processes on free ports (all on one table); stopped after the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(count: int) -> list[str]:
        urls = []
        for _ in range(count):
            port = dynamo.free_port()
            process = start_api_server(port, endpoint=dynamodb_endpoint, table=server_table.table_name)
            processes.append(process)
            urls.append(f"http://127.0.0.1:{port}")
        for url, process in zip(urls, processes[-count:], strict=True):
            wait_for_health(url, process)
        return urls

    yield start
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=10)
