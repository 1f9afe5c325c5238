"""Real server processes: `fileapi serve` API processes against the session's moto server."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pytest

from fileapi.file_services import FileServices, build_file_services
from fileapi.local import dynamo
from fileapi.local.processes import start_api_server, start_operations_process
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.storage import AccountStore
from fileapi.operations.aws import create_local_resources
from fileapi.settings import load_settings
from fileapi.storage.table import DynamoTable

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.server
# The network is closed here and on CI: nothing in the background of a browser may try to reach out.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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


class StartServers(Protocol):
    def __call__(
        self, count: int, *, endpoint: str | None = None, log_dir: Path | None = None, env: dict[str, str] | None = None
    ) -> list[str]:
        """Start `count` servers (against `endpoint`, default the session's; logs into `log_dir`/server-N.log)."""
        ...


@pytest.fixture()
def server_table(dynamodb_endpoint: str) -> DynamoTable:
    return dynamo.local_table(f"fileapi-server-{uuid.uuid4().hex[:8]}", dynamodb_endpoint)


@pytest.fixture()
def server_store(server_table: DynamoTable) -> AccountStore:
    """The account store of the servers' table (keys are made with it)."""
    return dynamo_stores(server_table).accounts


@pytest.fixture()
def start_servers(dynamodb_endpoint: str, server_table: DynamoTable) -> Iterator[StartServers]:
    """Start API server processes on free ports (all on one table); stopped after the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(
        count: int, *, endpoint: str | None = None, log_dir: Path | None = None, env: dict[str, str] | None = None
    ) -> list[str]:
        urls = []
        for _ in range(count):
            port = dynamo.free_port()
            process = start_api_server(
                port,
                endpoint=endpoint or dynamodb_endpoint,
                table=server_table.table_name,
                log_path=log_dir / f"server-{len(processes)}.log" if log_dir is not None else None,
                env=env,
            )
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


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[Page]:
    """A page of a fresh chromium profile: Debian's chromium driven by Playwright, never a downloaded browser
    (skipped, saying why, without chromium or Playwright)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed: `make tools` installs Debian's chromium (apt-get, as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: `make install` installs it (requirements-dev.txt)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=chromium,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            yield context.new_page()
        finally:
            context.close()


@dataclass(frozen=True)
class FileApi:
    """`fileapi serve` and `fileapi operations` on one table, bucket and pair of queues of moto's server."""

    url: str
    server: subprocess.Popen[bytes]
    operations: subprocess.Popen[bytes]
    services: FileServices
    store: AccountStore


@contextmanager
def running_file_api(
    dynamodb_endpoint: str, tmp_path: Path, *, extra_env: dict[str, str] | None = None
) -> Iterator[FileApi]:
    """An API server and its operations process, as `fileapi run` starts them, on a table, a bucket and queues of
    their own (with `extra_env` added to both processes' environment); stopped after the block."""
    server_table = dynamo.local_table(f"fileapi-files-{uuid.uuid4().hex[:8]}", dynamodb_endpoint)
    settings = replace(
        load_settings(), s3_endpoint=dynamodb_endpoint, sqs_endpoint=dynamodb_endpoint, urls_allow_loopback=True
    )
    resources = create_local_resources(settings, prefix=f"s{uuid.uuid4().hex[:8]}-")
    env = {
        **resources.environment(),
        "FILEAPI_S3_ENDPOINT": dynamodb_endpoint,
        "FILEAPI_SQS_ENDPOINT": dynamodb_endpoint,
        "FILEAPI_URLS_ALLOW_LOOPBACK": "1",
        "FILEAPI_WEBHOOK_SCHEDULE": "0,1,1",  # three attempts, a second apart (Standard Webhooks': 27.6 hours)
        "FILEAPI_WORK_DIR": str(tmp_path),
        **(extra_env or {}),
    }
    services = build_file_services(
        replace(
            settings,
            bucket=resources.bucket,
            operations_queue_url=resources.operations_queue_url,
            webhooks_queue_url=resources.webhooks_queue_url,
            webhooks_dlq_url=resources.webhooks_dlq_url,
        ),
        server_table,
    )
    port = dynamo.free_port()
    table = server_table.table_name
    server = start_api_server(port, endpoint=dynamodb_endpoint, table=table, env=env, log_path=tmp_path / "api.log")
    operations = start_operations_process(
        endpoint=dynamodb_endpoint, table=table, env=env, log_path=tmp_path / "operations.log"
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, server)
        yield FileApi(url, server, operations, services, dynamo_stores(server_table).accounts)
    finally:
        for process in (server, operations):
            process.terminate()
        for process in (server, operations):
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def file_api(dynamodb_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileApi]:
    """An API server and its operations process (`running_file_api`), shared by a module's tests (`services` and
    `store`: the same, for the test to make keys and look at the table and the bucket)."""
    with running_file_api(dynamodb_endpoint, tmp_path_factory.mktemp("file-api")) as api:
        yield api
