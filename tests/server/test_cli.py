"""`fileapi run` (what `make run` starts) and `fileapi keys create` as a user runs them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from fileapi.local import dynamo
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS
from fileapi.metering.keys import is_well_formed, key_from_random
from tests.helpers import auth
from tests.process_tree import tree
from tests.server.conftest import wait_for_health

pytestmark = pytest.mark.server
CLI = Callable[..., subprocess.CompletedProcess[str]]
DEV_KEY = key_from_random("localdevkey0123456789" * 2 + "a")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


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
    """`fileapi run` in a process group of its own, as a terminal starts it (Ctrl-C signals the whole group)."""
    return subprocess.Popen(
        [sys.executable, "-m", "fileapi.local.cli", "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
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
    # the banner comes once the port answers: the first request needs no wait
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
    assert is_well_formed(new_key)
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


def test_run_keeps_an_earlier_format_dev_key(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    legacy = "sk_live_" + "A-_" * 14 + "z"
    process = start_run(run_env(tmp_path, FILEAPI_DEV_KEY=legacy))
    stop.append(process)
    base_url, key = read_banner(process)
    assert key == legacy
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    answer = httpx.post(f"{base_url}/v1/data/base64-encode", content=b"hi", headers=auth(key))
    assert (answer.text, answer.headers["Deprecation"]) == ("aGk=", DEPRECATED_KEY_HEADERS["Deprecation"])


@pytest.mark.parametrize("value", ["hunter2", "sk_live_short", DEV_KEY[:-1] + ("0" if DEV_KEY[-1] != "0" else "1")])
def test_run_stops_on_a_dev_key_that_is_not_a_key(tmp_path: Path, value: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "run"],
        env=run_env(tmp_path, FILEAPI_DEV_KEY=value),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "FILEAPI_DEV_KEY is not an API key" in result.stderr
    assert "fileapi keys generate" in result.stderr
    assert not (tmp_path / "state" / "dev-key").exists()


def test_run_without_a_dev_key_creates_one_and_keeps_it_for_the_next_run(
    tmp_path: Path, stop: list[subprocess.Popen[str]]
) -> None:
    env = run_env(tmp_path)
    keys_dev = [sys.executable, "-m", "fileapi.local.cli", "keys", "dev"]
    # before any run `fileapi keys dev` says what to do
    before = subprocess.run(keys_dev, env=env, capture_output=True, text=True)
    assert before.returncode == 1 and "make run" in before.stderr
    process = start_run(env)
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"]) == ("business", 1_000_000)
    # the README's KEY=$(.venv/bin/fileapi keys dev) gives that key
    assert subprocess.run(keys_dev, env=env, capture_output=True, text=True, check=True).stdout.strip() == key
    # AND the next run serves the same key
    process.send_signal(signal.SIGINT)
    process.wait(timeout=15)
    again = start_run(env)
    stop.append(again)
    base_url, second = read_banner(again)
    assert second == key
    wait_for_health(base_url, again)  # type: ignore[arg-type]
    assert httpx.get(f"{base_url}/v1/usage", headers=auth(key)).status_code == 200


@pytest.mark.parametrize(
    ("how", "signum", "status"),
    [
        ("ctrl-c", signal.SIGINT, 128 + signal.SIGINT),  # the terminal signals the whole process group
        ("kill", signal.SIGTERM, 128 + signal.SIGTERM),
        ("kill", signal.SIGKILL, -signal.SIGKILL),
    ],
)
def test_run_stopped_leaves_no_process_behind_and_no_traceback(
    tmp_path: Path, how: str, signum: int, status: int, stop: list[subprocess.Popen[str]]
) -> None:
    process = start_run(run_env(tmp_path))
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    # a conversion, so that the API's workers have worked and hold their sockets
    photo = (Path(__file__).parents[2] / "examples" / "photo.jpg").read_bytes()
    resized = httpx.post(  # the first conversion waits for the workers' imports: seconds on a busy machine
        f"{base_url}/v1/image/resize", params={"width": 10}, content=photo, headers=auth(key), timeout=60
    )
    assert resized.status_code == 200
    started = tree(process.pid)  # the runner, its DynamoDB endpoint, its operations consumer and their workers
    assert len(started) >= 5, started
    if how == "ctrl-c":
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == status
    deadline = time.monotonic() + 30  # the consumer notices its parent gone within half a second
    while (left := [pid for pid in started[1:] if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []
    if signum != signal.SIGKILL:
        assert "Traceback" not in output, output
        assert not (tmp_path / "state" / "run.json").exists()  # cleaned up: the runner's own shutdown ran


def test_cli_help_lists_the_commands() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fileapi.local.cli", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("run", "serve", "dynamodb", "keys", "tables", "openapi"):
        assert command in result.stdout


def serving(tmp_path: Path, stop: list[subprocess.Popen[str]], **settings: str) -> tuple[str, str, CLI]:
    """`fileapi run` with `settings`: its base URL, its key, and the `fileapi` command beside it."""
    env = run_env(tmp_path, **settings)
    process = start_run(env)
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]

    def cli(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "fileapi.local.cli", *words], env=env, capture_output=True, text=True
        )

    return base_url, key, cli


def test_accounts_commands(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    base_url, key, fileapi = serving(tmp_path, stop, FILEAPI_DEV_KEY=DEV_KEY, FILEAPI_DEV_EMAIL="owner@example.com")

    def cli(*words: str) -> subprocess.CompletedProcess[str]:
        return fileapi("accounts", *words)

    assert "owner@example.com\tbusiness\tactive\t1000000" in cli("list").stdout
    shown = cli("show", "owner@example.com")
    assert '"plan": "business"' in shown.stdout and DEV_KEY not in shown.stdout and "key_hash" not in shown.stdout
    assert cli("set-plan", "owner@example.com", "starter", "--quota", "9").returncode == 0
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"]) == ("starter", 9)
    assert cli("set-status", "owner@example.com", "past_due").returncode == 0
    assert httpx.get(f"{base_url}/v1/usage", headers=auth(key)).status_code == 403
    assert cli("show", "nobody@example.com").returncode == 1


def test_custom_plans_are_created_listed_and_given_to_keys(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    base_url, _, cli = serving(tmp_path, stop, FILEAPI_DEV_KEY=DEV_KEY)

    # GIVEN a custom plan of 10,000 requests/s with a burst of 20,000 (30,000 writes in its worst second, with
    # 2% headroom over 800 a second per item: 39 shards)
    created = cli("plans", "create", "enterprise", "--rate", "10000", "--burst", "20000", "--quota", "50000000")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["shards_in_force"] == 39
    # THEN it is listed beside the contract's plans, and a contract plan cannot be redefined
    listed = cli("plans", "list").stdout.splitlines()
    assert listed[0].startswith("starter\t2/s\tburst 5\tquota 2500\tshards 1\tcontract")
    assert "enterprise\t10000/s\tburst 20000\tquota 50000000\tshards 39\tcustom" in listed
    assert "contract's plans" in cli("plans", "create", "pro", "--rate", "1", "--burst", "1", "--quota", "1").stderr
    # AND a key made on it answers with the plan's limits
    key = cli("keys", "create", "--email", "big@example.com", "--plan", "enterprise").stdout.strip()
    response = httpx.post(f"{base_url}/v1/data/base64-encode", content=b"x", headers=auth(key))
    assert (response.status_code, response.headers["RateLimit-Limit"]) == (200, str(39 * 524))
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"], usage["used_this_month"]) == ("enterprise", 50_000_000, 1)
    # AND an unknown plan is refused with the list of plans
    refused = cli("keys", "create", "--email", "nobody@example.com", "--plan", "platinum")
    assert refused.returncode == 1 and "unknown plan 'platinum'; plans are starter, pro" in refused.stderr


def test_the_paid_flow_runs_locally_on_the_billing_standin(tmp_path: Path, stop: list[subprocess.Popen[str]]) -> None:
    # GIVEN `fileapi run` without any Stripe settings (as `make run` starts it): the billing stand-in is on
    base_url, _, cli = serving(tmp_path, stop)
    # WHEN a customer checks out on pro
    done = cli("checkout", "--email", "buyer@example.com", "--plan", "pro")
    assert done.returncode == 0, done.stderr
    # THEN their key arrives in the local outbox, once, and works on pro
    mails = [
        path.read_text() for path in (tmp_path / "outbox").glob("*.eml") if "buyer@example.com" in path.read_text()
    ]
    assert len(mails) == 1
    key = re.search(r"sk_live_[0-9A-Za-z]{49}", mails[0]).group(0)  # type: ignore[union-attr]
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["status"], usage["quota_monthly"]) == ("pro", "active", 10_000)
    assert httpx.post(f"{base_url}/v1/data/base64-encode", content=b"x", headers=auth(key)).status_code == 200
    # AND the billing portal answers 303 to the local portal page, which shows the plan and the month's usage
    portal = httpx.get(f"{base_url}/v1/billing/portal", headers=auth(key))
    assert portal.status_code == 303
    location = portal.headers["location"]
    assert location.startswith(f"{base_url}/local/billing/portal?session=")
    page = httpx.get(location)
    assert page.status_code == 200 and 'id="plan">pro<' in page.text and 'id="used">1 of 10000' in page.text
    # AND the month's chart, the one GET /v1/usage/chart draws
    chart = page.text.split('<figure id="chart">', 1)[1].split("</figure>", 1)[0]
    assert chart == httpx.get(f"{base_url}/v1/usage/chart", headers=auth(key)).text
    # WHEN the plan is changed on the page THEN the account is on it at once, through the webhook's code
    session = location.split("session=", 1)[1]
    changed = httpx.post(
        f"{base_url}/local/billing/portal", data={"session": session, "action": "change", "plan": "growth"}
    )
    assert changed.status_code == 303 and "status+active" in changed.headers["location"]
    usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["quota_monthly"], usage["used_this_month"]) == ("growth", 50_000, 1)
    # AND a second checkout for the same address keeps the key (no second key mailed)
    assert cli("checkout", "--email", "buyer@example.com", "--plan", "scale").returncode == 0
    keys = [path.read_text() for path in (tmp_path / "outbox").glob("*.eml") if "Your API key:" in path.read_text()]
    assert len(keys) == 1
    assert httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()["plan"] == "scale"
    # AND cancelling on the page makes the key answer 403; a forged session is refused
    assert (
        httpx.post(f"{base_url}/local/billing/portal", data={"session": session, "action": "cancel"}).status_code == 303
    )
    assert httpx.get(f"{base_url}/v1/usage", headers=auth(key)).status_code == 403
    forged = httpx.get(f"{base_url}/local/billing/portal", params={"session": session[:-2] + "xx"})
    assert (forged.status_code, forged.json()["error"]) == (400, "invalid_input")


def test_run_keeps_local_data_across_a_restart_and_fresh_starts_empty(
    tmp_path: Path, stop: list[subprocess.Popen[str]]
) -> None:
    # GIVEN a run with a counted request, a webhook and an operation
    env = run_env(tmp_path)
    process = start_run(env)
    stop.append(process)
    base_url, key = read_banner(process)
    wait_for_health(base_url, process)  # type: ignore[arg-type]
    assert httpx.post(f"{base_url}/v1/data/base64-encode", content=b"hi", headers=auth(key)).status_code == 200
    hook = httpx.post(f"{base_url}/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=auth(key))
    assert hook.status_code == 201, hook.text
    queued = httpx.post(
        f"{base_url}/v1/data/base64-encode", content=b"hi", headers={**auth(key), "Prefer": "respond-async"}
    )
    assert queued.status_code == 202, queued.text
    operation = queued.headers["Location"]

    def seen(base_url: str) -> tuple[int, list[str], int]:
        usage = httpx.get(f"{base_url}/v1/usage", headers=auth(key)).json()
        hooks = httpx.get(f"{base_url}/v1/webhooks", headers=auth(key)).json()
        found = httpx.get(f"{base_url}{operation}" if operation.startswith("/") else operation, headers=auth(key))
        return usage["used_this_month"], [entry["url"] for entry in hooks["webhooks"]], found.status_code

    before = seen(base_url)
    assert before[1:] == (["http://127.0.0.1:9/hook"], 200)
    # WHEN it is stopped (Ctrl-C) and started again
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=60)
    assert (tmp_path / "state" / "endpoint-state.pickle").is_file()
    again = start_run(env)
    stop.append(again)
    base_url, second = read_banner(again)
    wait_for_health(base_url, again)  # type: ignore[arg-type]
    # THEN the same key finds its usage, its webhook and its operation
    assert second == key
    assert seen(base_url) == before
    # AND `make run FRESH=1` (fileapi run --fresh) starts with none of it, the same key on a new account
    os.killpg(again.pid, signal.SIGINT)
    again.wait(timeout=60)
    fresh = subprocess.Popen(
        [sys.executable, "-m", "fileapi.local.cli", "run", "--fresh"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    stop.append(fresh)
    base_url, third = read_banner(fresh)
    wait_for_health(base_url, fresh)  # type: ignore[arg-type]
    assert third == key
    assert seen(base_url) == (0, [], 404)
