"""The clients' tests run against the whole API served by `fileapi run` (a local DynamoDB endpoint inside)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fileapi.local.dynamo import free_port

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class LocalApi:
    base_url: str
    api_key: str
    env: dict[str, str]

    def create_key(self, plan: str, email: str) -> str:
        """A new key on `plan`, made with the CLI against the running store."""
        completed = subprocess.run(
            [str(BIN / "fileapi"), "keys", "create", "--email", email, "--plan", plan],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return completed.stdout.strip()

    def create_plan(self, name: str, *, rate: float, burst: int, quota: int) -> None:
        """A custom plan (requests per second, bucket size, monthly quota), made with the CLI."""
        subprocess.run(
            [str(BIN / "fileapi"), "plans", "create", name, "--rate", str(rate), "--burst", str(burst),
             "--quota", str(quota)],
            env=self.env,
            capture_output=True,
            check=True,
            timeout=60,
        )  # fmt: skip


def _wait(base_url: str, process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"fileapi run exited with {process.returncode}: {log.read_text()[-2000:]}")
        found = re.search(r"^API key: (\S+)$", log.read_text(errors="replace"), re.MULTILINE)
        if found:
            try:
                with urllib.request.urlopen(f"{base_url}/health", timeout=1) as response:
                    if response.status == 200:
                        return found.group(1)
            except OSError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"fileapi run did not become healthy: {log.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def local_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalApi]:
    """`fileapi run` on a free port with its own state directory; stopped after the session."""
    state = tmp_path_factory.mktemp("fileapi-run")
    port = free_port()
    env = {**os.environ, "FILEAPI_STATE_DIR": str(state), "FILEAPI_PORT": str(port), "FILEAPI_DEV_PLAN": "business"}
    env.pop("FILEAPI_DEV_KEY", None)
    log = state / "run.log"
    with log.open("wb") as output:
        # Its own session: the runner and every process it starts (the operations consumer too) are stopped.
        process = subprocess.Popen(
            [str(BIN / "fileapi"), "run"], env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        key = _wait(base_url, process, log)
        yield LocalApi(base_url, key, env)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # what of the group outlived its runner
