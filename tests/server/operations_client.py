"""What the operations tests do as a client of a real server: upload a file by its presigned POST, ask for an
operation, wait for it to end, fetch its files while hashing them."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import auth

# How long a test waits for an operation to end before it calls the server stuck (a hang guard, not a measure).
WAIT_BOUND_SECONDS = 900.0
POLL_SECONDS = 0.25
CHUNK_BYTES = 1024 * 1024


def upload(client: httpx.Client, key: str, source: Path | bytes, *, content_type: str) -> str:
    """POST /v1/uploads, then the file (streamed from disk when a path) to its presigned POST; the upload's id."""
    size = source.stat().st_size if isinstance(source, Path) else len(source)
    created = client.post(
        "/v1/uploads", json={"filename": "input", "contentType": content_type, "size": size}, headers=auth(key)
    )
    assert created.status_code == 201, created.text
    form = created.json()
    if isinstance(source, Path):
        with source.open("rb") as file:
            posted = httpx.post(
                form["url"], data=form["fields"], files={"file": ("input", file, content_type)}, timeout=600
            )
    else:
        posted = httpx.post(form["url"], data=form["fields"], files={"file": ("input", source, content_type)})
    assert posted.status_code == 204, posted.text
    return str(form["id"])


def ended(client: httpx.Client, key: str, operation_id: str) -> dict[str, Any]:
    """The operation once it is no longer running (polled as its Retry-After says, within WAIT_BOUND_SECONDS)."""
    deadline = time.monotonic() + WAIT_BOUND_SECONDS
    while time.monotonic() < deadline:
        answer = client.get(f"/v1/operations/{operation_id}", headers=auth(key))
        assert answer.status_code == 200, answer.text
        operation: dict[str, Any] = answer.json()
        if operation["status"] != "running":
            return operation
        time.sleep(POLL_SECONDS)
    raise AssertionError(f"{operation_id} was still running after {WAIT_BOUND_SECONDS:.0f} s")


def sha256_of(url: str) -> tuple[str, int]:
    """The SHA-256 and size of the file a result's link serves, read in chunks."""
    digest = hashlib.sha256()
    size = 0
    with httpx.stream("GET", url, timeout=600) as answer:
        assert answer.status_code == 200
        for chunk in answer.iter_bytes(CHUNK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def used(client: httpx.Client, key: str) -> int:
    """Requests counted this month for `key`."""
    return int(client.get("/v1/usage", headers=auth(key)).json()["used_this_month"])
