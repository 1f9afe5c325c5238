"""What a newcomer types, run with curl against a real `fileapi serve` (issue 20): files as forms, JSON as curl
sends it, messages that say what to send, and CORS as the template declares it."""

from __future__ import annotations

import io
import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from fileapi.web.errors import BODY_HINT, SEND_JSON
from tests.api.test_cors import as_set, template_cors
from tests.helpers import require_tool
from tests.server.conftest import StartServers

pytestmark = pytest.mark.server
LIMIT_BYTES = 200_000  # the servers' FILEAPI_MAX_BODY_BYTES here
BIG_FILE_BYTES = 20 * LIMIT_BYTES
# What the server may hold beyond the limit when it refuses: one socket read (asyncio reads up to 256 KiB)
# plus what uvicorn buffers before it pauses the transport (64 KiB); far less than the file.
READ_AHEAD_BYTES = 256 * 1024 + 64 * 1024


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, str]:
        return dict(json.loads(self.body))


@dataclass(frozen=True)
class Curl:
    base_url: str
    key: str
    folder: Path

    def __call__(self, path: str, *args: str, key: bool = True) -> Answer:
        """curl `args` to `path` (with the key unless key=False); the answer's status, headers and body."""
        head = self.folder / "head.txt"
        command = [require_tool("curl"), "-s", "-D", str(head), *args, f"{self.base_url}{path}"]
        if key:
            command[2:2] = ["-H", f"Authorization: Bearer {self.key}"]
        body = subprocess.run(command, cwd=self.folder, capture_output=True, timeout=60).stdout
        lines = head.read_text(encoding="latin-1").strip().splitlines()
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        return Answer(int(lines[0].split()[1]), {name.lower(): value for name, value in headers.items()}, body)


@pytest.fixture()
def curl(start_servers: StartServers, server_store: AccountStore, tmp_path: Path) -> Iterator[Curl]:
    (base_url,) = start_servers(
        1, log_dir=tmp_path, env={"FILEAPI_MAX_BODY_BYTES": str(LIMIT_BYTES), "POWERTOOLS_LOG_LEVEL": "INFO"}
    )
    image = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 200, 30)).save(image, "PNG")
    (tmp_path / "photo.png").write_bytes(image.getvalue())
    (tmp_path / "big.bin").write_bytes(b"\0" * BIG_FILE_BYTES)
    yield Curl(base_url, create_key(server_store, email="newcomer@example.com", plan="business"), tmp_path)


def logged_records(log: Path, *, status: int) -> list[dict[str, Any]]:
    """The server's request records with `status` (waiting for the line: it is written after the answer)."""
    deadline = time.monotonic() + 10
    while True:
        records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
        found = [record for record in records if record.get("message") == "request" and record["status"] == status]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def width_of(answer: Answer) -> int:
    assert answer.status == 200, answer.body[:300]
    return Image.open(io.BytesIO(answer.body)).size[0]


def test_files_as_forms(curl: Curl) -> None:
    assert width_of(curl("/v1/image/resize", "-F", "file=@photo.png", "-F", "width=10")) == 10
    assert width_of(curl("/v1/image/resize?width=12", "-F", "upload=@photo.png")) == 12
    assert width_of(curl("/v1/image/resize?width=14", "--data-binary", "@photo.png")) == 14  # labelled as a form
    two = curl("/v1/image/resize?width=10", "-F", "a=@photo.png", "-F", "b=@photo.png")
    assert (two.status, two.json()["error"]) == (400, "invalid_input")
    assert "2 files (parts 'a', 'b')" in two.json()["message"]
    twice = curl("/v1/image/resize?width=10", "-F", "file=@photo.png", "-F", "width=20")
    assert twice.status == 400 and "given both in the query string and as a form field" in twice.json()["message"]


def test_a_streamed_form_over_the_limit_is_413_before_it_is_read_in_full(curl: Curl) -> None:
    # "Expect:" keeps curl from waiting for a 100 Continue (it asks for one on bodies over 1 MiB)
    answer = curl("/v1/file/hash", "-H", "Transfer-Encoding: chunked", "-H", "Expect:", "-F", "file=@big.bin")
    assert (answer.status, answer.json()["error"]) == (413, "too_large")
    (refused,) = logged_records(curl.folder / "server-0.log", status=413)
    # read up to the limit, not the rest
    assert LIMIT_BYTES < refused["bytes_in"] <= LIMIT_BYTES + READ_AHEAD_BYTES < BIG_FILE_BYTES / 5, refused


def test_json_as_curl_sends_it(curl: Curl) -> None:
    body = '{"text": "hello"}'
    for extra in (
        [],
        ["-H", "Content-Type:"],
        ["-H", "Content-Type: text/plain"],
        ["-H", "Content-Type: application/json"],
    ):
        answer = curl("/v1/qr/generate", "-d", body, *extra)
        assert (answer.status, answer.headers["content-type"]) == (200, "image/png"), (extra, answer.body[:300])
    not_json = curl("/v1/qr/generate", "-d", "text=hello")
    assert (not_json.status, not_json.json()["error"]) == (400, "invalid_input")
    assert not_json.json()["message"].endswith(SEND_JSON)


def test_a_form_to_a_bytes_in_route_says_how_to_send_a_file(curl: Curl) -> None:
    answer = curl("/v1/image/resize", "-d", "width=100")
    assert answer.status == 400
    assert answer.json()["message"].endswith(BODY_HINT)


def test_a_preflight_from_another_origin_is_answered_as_the_template_declares(curl: Curl) -> None:
    cors = template_cors()
    origin = ["-H", "Origin: https://app.example.com"]
    preflight = curl(
        "/v1/image/resize",
        "-X",
        "OPTIONS",
        *origin,
        "-H",
        "Access-Control-Request-Method: POST",
        "-H",
        "Access-Control-Request-Headers: authorization,content-type",
        key=False,
    )
    assert preflight.status == 204
    assert preflight.headers["access-control-allow-origin"] == "*" == ",".join(cors["AllowOrigins"])
    assert as_set(preflight.headers["access-control-allow-methods"]) == as_set(",".join(cors["AllowMethods"]))
    assert as_set(preflight.headers["access-control-allow-headers"]) == as_set(",".join(cors["AllowHeaders"]))
    assert preflight.headers["access-control-max-age"] == str(cors["MaxAge"])
    answer = curl("/v1/image/resize?width=10", "-F", "file=@photo.png", *origin)
    assert answer.headers["access-control-allow-origin"] == "*"
    assert as_set(answer.headers["access-control-expose-headers"]) == as_set(",".join(cors["ExposeHeaders"]))


def test_the_allowed_origins_come_from_the_setting(start_servers: StartServers, tmp_path: Path) -> None:
    (base_url,) = start_servers(1, env={"FILEAPI_CORS_ALLOWED_ORIGINS": "https://app.example.com, http://*"})
    curl = Curl(base_url, "", tmp_path)
    preflight = ["-X", "OPTIONS", "-H", "Access-Control-Request-Method: POST"]
    for origin, answered in [
        ("https://app.example.com", "https://app.example.com"),
        ("http://localhost:5173", "http://localhost:5173"),
        ("https://other.example.com", None),
    ]:
        answer = curl("/v1/qr/generate", *preflight, "-H", f"Origin: {origin}", key=False)
        assert (answer.status, answer.headers.get("access-control-allow-origin")) == (204, answered)
