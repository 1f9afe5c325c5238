"""Real server processes: `fileapi serve` API processes against the session's moto server."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pytest

from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.table import DynamoTable
from fileapi.metering.storage import AccountStore

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
