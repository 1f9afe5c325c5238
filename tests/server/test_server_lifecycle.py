"""`fileapi serve` as a process: a client that goes away mid-body is a client disconnect (not a 500, not
charged), and a server told to stop during a conversion answers it, stops its workers and exits."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image

from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from fileapi.storage.table import DynamoTable
from tests.helpers import auth
from tests.server.conftest import StartServers, wait_for_health

pytestmark = pytest.mark.server


def records(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def children(pid: int) -> list[int]:
    """The process ids of `pid`'s children."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(") ")[1][0] != "Z"


def test_a_client_that_disconnects_mid_body_is_logged_as_such_and_not_charged(
    start_servers: StartServers, server_store: AccountStore, tmp_path: Path
) -> None:
    # GIVEN a server logging every request, and a key
    (url,) = start_servers(1, log_dir=tmp_path, env={"POWERTOOLS_LOG_LEVEL": "INFO"})
    key = create_key(server_store, email="gone@example.com", plan="business")
    # WHEN a client announces 1,000,000 bytes, sends 10,000 and goes away
    address = urlsplit(url)
    with socket.create_connection((address.hostname or "", address.port or 80), timeout=10) as client:
        head = (
            "POST /v1/image/resize?width=10 HTTP/1.1\r\nHost: test\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: image/png\r\nContent-Length: 1000000\r\n\r\n"
        )
        client.sendall(head.encode() + b"\x89PNG" + bytes(9996))
        time.sleep(0.5)
    # THEN the server records a client disconnect (never an unexpected error) and charges nothing
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        logged = records(tmp_path / "server-0.log")
        resize = [record for record in logged if record.get("route") == "/v1/image/resize"]
        if resize:
            break
        time.sleep(0.1)
    assert [(record["status"], record["client_disconnected"], record["metering"]) for record in resize] == [
        (499, True, "refunded")
    ]
    assert not [record for record in logged if record.get("level") == "ERROR"]
    assert httpx.get(f"{url}/v1/usage", headers=auth(key)).json()["used_this_month"] == 0


def avif_job() -> bytes:
    """A 5000 x 5000 JPEG (about 2 MB) whose conversion to AVIF takes seconds."""
    side = 5000
    small = Image.frombytes("RGB", (side // 20, side // 20), os.urandom((side // 20) ** 2 * 3))
    out = io.BytesIO()
    small.resize((side, side), Image.Resampling.BILINEAR).save(out, "JPEG", quality=60)
    return out.getvalue()


def test_a_server_told_to_stop_during_a_conversion_answers_it_then_stops_its_workers(
    dynamodb_endpoint: str, server_table: DynamoTable, server_store: AccountStore
) -> None:
    # GIVEN a server with one conversion worker, working on a conversion that takes seconds
    port = dynamo.free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_api_server(
        port,
        endpoint=dynamodb_endpoint,
        table=server_table.table_name,
        env={"FILEAPI_CONVERSION_WORKERS": "1", "FILEAPI_DEADLINE_SECONDS": "60"},
    )
    try:
        wait_for_health(url, server)
        key = create_key(server_store, email="stop@example.com", plan="business")
        workers = children(server.pid)
        assert len(workers) == 1
        answers: list[httpx.Response] = []
        request = threading.Thread(
            target=lambda: answers.append(
                httpx.post(f"{url}/v1/image/convert?to=avif", content=avif_job(), headers=auth(key), timeout=120)
            )
        )
        request.start()
        time.sleep(3)  # the job has reached the worker
        # WHEN the server is told to stop
        server.send_signal(signal.SIGTERM)
        request.join(timeout=120)
        exit_code = server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    # THEN the conversion in flight was answered, the server exited cleanly, and no worker outlived it
    assert [(answer.status_code, answer.headers["content-type"]) for answer in answers] == [(200, "image/avif")]
    assert Image.open(io.BytesIO(answers[0].content)).size == (5000, 5000)
    assert exit_code == -signal.SIGTERM  # uvicorn raises the signal again once its graceful shutdown is done
    assert not any(alive(worker) for worker in workers)
