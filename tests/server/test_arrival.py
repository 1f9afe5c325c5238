"""Requests arrive in bounded time on a real `fileapi serve` (fileapi.local.arrival): a body sent a byte a second is
answered 408 and its connection closed; headers trickled, or nothing sent, close the connection; and /health answers
while hundreds of such connections are open."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from tests.helpers import auth
from tests.server.conftest import StartServers

pytestmark = pytest.mark.server

REQUEST_SECONDS = 2
SERVER_ENV = {"FILEAPI_REQUEST_SECONDS": str(REQUEST_SECONDS)}
# Bounds of correctness, not figures (bench/arrival.py has those): the server acts within its request seconds and
# a loaded machine's margin, long before a trickle a byte a second would end.
ACT_BOUND_SECONDS = REQUEST_SECONDS + 4
IDLE_CONNECTIONS = 300


@contextmanager
def connection(url: str) -> Iterator[socket.socket]:
    address = urlsplit(url)
    sock = socket.create_connection((address.hostname or "127.0.0.1", address.port or 80), timeout=30)
    try:
        yield sock
    finally:
        sock.close()


def read_until_closed(sock: socket.socket, *, trickle: bytes = b"", bound_seconds: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection (a byte of `trickle` sent every second meanwhile),
    and how long that took; fails past `bound_seconds`."""
    started = time.monotonic()
    received = b""
    sock.settimeout(1.0)
    sent = 0
    while time.monotonic() - started < bound_seconds:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            if sent < len(trickle):
                try:
                    sock.sendall(trickle[sent : sent + 1])
                except OSError:
                    break
                sent += 1
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    else:
        pytest.fail(f"the server kept the connection open for {bound_seconds} s")
    return received, time.monotonic() - started


def test_a_body_sent_a_byte_a_second_is_answered_408_and_its_connection_closed(
    start_servers: StartServers, server_store: AccountStore, tmp_path: Path
) -> None:
    (url,) = start_servers(1, env=SERVER_ENV, log_dir=tmp_path)
    key = create_key(server_store, email="slow@example.com", plan="pro")
    body = b"hello, slowly" * 10
    head = (
        f"POST /v1/data/base64-encode HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with connection(url) as sock:
        sock.sendall(head + body[:1])
        received, seconds = read_until_closed(sock, trickle=body[1:], bound_seconds=ACT_BOUND_SECONDS)
    status_line, _, rest = received.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 408 Request Timeout"
    headers, _, answer = rest.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower()
    error = json.loads(answer)
    assert error["error"] == "request_timeout" and "/v1/uploads" in error["message"]
    assert seconds >= REQUEST_SECONDS - 1.5  # not before its time: the headers came a moment before
    # AND the request was not charged
    with httpx.Client(base_url=url, headers=auth(key)) as client:
        answered = client.post("/v1/data/base64-encode", content=b"x")
    assert answered.status_code == 200 and answered.headers["X-Quota-Remaining"] == "9999"
    log = (tmp_path / "server-0.log").read_text()
    assert "Traceback" not in log, log


def test_headers_trickled_or_nothing_sent_close_the_connection(start_servers: StartServers) -> None:
    (url,) = start_servers(1, env=SERVER_ENV)
    with connection(url) as silent, connection(url) as trickling:
        trickling.sendall(b"GET /health HTTP/1.1\r\n")
        _, trickled_seconds = read_until_closed(trickling, trickle=b"X-Slow: " + b"a" * 60, bound_seconds=30)
        _, silent_seconds = read_until_closed(silent, bound_seconds=30)
    assert trickled_seconds < ACT_BOUND_SECONDS
    assert silent_seconds < ACT_BOUND_SECONDS + 5  # uvicorn's keep-alive timeout, 5 s


def test_health_answers_while_hundreds_of_connections_trickle(start_servers: StartServers) -> None:
    (url,) = start_servers(1, env={"FILEAPI_REQUEST_SECONDS": "20"})
    with ExitStack() as stack:
        idle = [stack.enter_context(connection(url)) for _ in range(IDLE_CONNECTIONS)]
        for sock in idle:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # headers begun, never ended
        with httpx.Client(base_url=url, timeout=10) as client:
            answers = []
            for _ in range(10):
                started = time.monotonic()
                status = client.get("/health").status_code
                answers.append((status, time.monotonic() - started))
    assert [status for status, _ in answers] == [200] * 10
    assert max(seconds for _, seconds in answers) < 2.0  # a bound of correctness; bench/arrival.py times it


@pytest.mark.parametrize(
    "head",
    [
        b"POST /v1/pdf/pages?order=" + b"9" * 200_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # past h11's buffer
        b"POST /v1/pdf/pages HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",  # malformed
    ],
)
def test_a_request_the_server_cannot_read_is_answered_with_api_error_json(
    start_servers: StartServers, head: bytes
) -> None:
    (url,) = start_servers(1, env=SERVER_ENV)
    with connection(url) as sock:
        sock.sendall(head)
        received, _ = read_until_closed(sock, bound_seconds=ACT_BOUND_SECONDS)
    status, _, rest = received.partition(b"\r\n")
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert status == b"HTTP/1.1 400 Bad Request"  # was text/plain "Invalid HTTP request received."
    assert b"content-type: application/json" in headers.lower() and b"connection: close" in headers.lower()
    answer = json.loads(body)
    assert answer["error"] == "invalid_input" and answer["docs_url"] == "/docs/errors#invalid_input"
    assert answer["message"].startswith("the request could not be read as HTTP/1.1")
    assert httpx.get(f"{url}/health", timeout=10).status_code == 200  # and the server answers the next request
