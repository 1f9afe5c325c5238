"""`fileapi run` (what `make run` starts) and `fileapi keys create` as a user runs them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fileapi.local import dynamo
from tests.helpers import auth
from tests.server.conftest import wait_for_health

pytestmark = pytest.mark.server
DEV_KEY = "sk_live_" + "localdevkey0123456789" * 2 + "ab"


def run_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("FILEAPI_", "AWS_"))}
    env.update(
        FILEAPI_PORT=str(dynamo.free_port()),
        FILEAPI_STATE_DIR=str(tmp_path / "state"),
        FILEAPI_OUTBOX=str(tmp_path / "outbox"),
        POWERTOOLS_LOG_LEVEL="WARNING",
        **extra,
    )
    return env


def start_run(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "fileapi.local.cli", "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture()
def stop() -> Iterator[list[subprocess.Popen[str]]]:
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def read_banner(process: subprocess.Popen[str]) -> tuple[str, str]:
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(2)]
    base_url = re.search(r"File API on (http://\S+)", lines[0])
    key = re.search(r"API key: (sk_live_\S+)", lines[1])
    assert base_url and key, lines
    return base_url.group(1), key.group(1)


def test_run_serves_the_api_with_the_configured_dev_key(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    env = run_env(tmp_path, FILEAPI_DEV_KEY=DEV_KEY, FILEAPI_DEV_PLAN="pro", FILEAPI_DEV_QUOTA="5")
    process = start_run(env)
    stop.append(process)
    base_url, key = read_banner(process)
    assert key == DEV_KEY
    assert base_url == f"http://127.0.0.1:{env['FILEAPI_PORT']}"
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    assert httpx.post(f"{base_url}/v1/data/base64-encode", content=b"hi", headers=auth(key)).text == "aGk="
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"], usage["used_this_month"]) == ("pro", 5, 1)
    assert (tmp_path / "outbox").is_dir()

    # `fileapi keys create` finds the running store and prints only the key
    created = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "keys", "create", "--email", "b@example.com", "--plan", "starter"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    new_key = created.stdout.strip()
    assert re.fullmatch(r"sk_live_[A-Za-z0-9_-]{43}", new_key)
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(new_key)).json()
    assert (usage["plan"], usage["quota_monthly"]) == ("starter", 2500)

    duplicate = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "keys", "create", "--email", "b@example.com", "--plan", "pro"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert duplicate.returncode == 1
    assert "b@example.com" in duplicate.stderr


def test_run_without_a_dev_key_creates_and_prints_one(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    process = start_run(run_env(tmp_path))
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"]) == ("business", 1_000_000)


def test_cli_help_lists_the_commands() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("run", "serve", "dynamodb", "keys", "tables", "openapi"):
        assert command in result.stdout


def test_accounts_commands(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    env = run_env(tmp_path, FILEAPI_DEV_KEY=DEV_KEY, FILEAPI_DEV_EMAIL="owner@example.com")
    process = start_run(env)
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]

    def cli(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "fileapi.local.cli", "accounts", *words], env=env, capture_output=True, text=True
        )

    assert "owner@example.com\tbusiness\tactive\t1000000" in cli("list").stdout
    shown = cli("show", "owner@example.com")
    assert '"plan": "business"' in shown.stdout and DEV_KEY not in shown.stdout and "key_hash" not in shown.stdout
    assert cli("set-plan", "owner@example.com", "starter", "--quota", "9").returncode == 0
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"]) == ("starter", 9)
    assert cli("set-status", "owner@example.com", "past_due").returncode == 0
    assert httpx.get(f"{base_url}/v1/usage", headers=auth(key)).status_code == 403
    assert cli("show", "nobody@example.com").returncode == 1
