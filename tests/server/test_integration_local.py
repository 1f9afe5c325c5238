"""The black-box integration tests, run against `fileapi run` here (in CI they run against each deployed stage)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.conftest import wait_for_health
from tests.server.test_cli import read_banner, run_env, start_run

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]


def test_integration_suite_passes_against_the_local_server(tmp_path: Path) -> None:
    process = start_run(run_env(tmp_path))
    try:
        base_url, key = read_banner(process)
        wait_for_health(base_url, process)  # type: ignore[arg-type]
        env = {**os.environ, "FILEAPI_BASE_URL": base_url, "FILEAPI_API_KEY": key}
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/integration", "-m", "integration"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout[-2000:]
        assert " passed" in result.stdout and "skipped" not in result.stdout
    finally:
        process.terminate()
        process.wait(timeout=15)
