"""`fileapi serve` as a process: a client that goes away mid-body is a client disconnect (not a 500, not
charged)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.store import AccountStore
from tests.helpers import auth
from tests.server.conftest import StartServers

pytestmark = pytest.mark.server


def records(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


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
