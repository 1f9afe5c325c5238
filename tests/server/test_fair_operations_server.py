"""Fair and cancellable operations on real processes (`fileapi serve` and `fileapi operations` with two conversion
workers, on moto): one account's long operations do not hold another's small ones back, and DELETE on a running
operation stops its conversion (its worker is killed) and reports how long it ran."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from fileapi.metering.admin import create_key
from tests.helpers import auth
from tests.operations.helpers import pdf_with_pages
from tests.process_tree import alive, cpu_seconds, tree
from tests.server.conftest import FileApi, running_file_api
from tests.server.operations_client import ended, upload

pytestmark = [pytest.mark.server, pytest.mark.xdist_group("long-server-runs")]

# Bounds of correctness, not figures: what the executor does within a second (a record read every 0.5 s, a
# kill), with room for a loaded machine; a long operation here runs for many seconds.
STOPPED_BOUND_SECONDS = 3.0
LONG_OPERATIONS = 4
BUSY_CPU_SECONDS = 0.05  # of half a second: a worker at work, on a machine other processes share


@pytest.fixture(scope="module")
def fair_api(dynamodb_endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileApi]:
    extra = {"FILEAPI_CONVERSION_WORKERS": "2"}
    with running_file_api(dynamodb_endpoint, tmp_path_factory.mktemp("fair-api"), extra_env=extra) as api:
        yield api


@pytest.fixture(scope="module")
def long_input(fair_api: FileApi) -> bytes:
    """A 40-megapixel JPEG of smoothed noise (about 5 MB): its AVIF encoding takes many CPU-seconds."""
    size = (7300, 5500)
    small = Image.frombytes("RGB", (size[0] // 16, size[1] // 16), os.urandom((size[0] // 16) * (size[1] // 16) * 3))
    buffer = io.BytesIO()
    small.resize(size, Image.Resampling.BILINEAR).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


def long_operation(client: httpx.Client, key: str, upload_id: str) -> str:
    answer = client.post(f"/v1/image/convert?upload={upload_id}&to=avif", headers=auth(key))
    assert answer.status_code == 202, answer.text
    return str(answer.json()["id"])


def status_of(client: httpx.Client, key: str, operation_id: str) -> dict[str, object]:
    answer = client.get(f"/v1/operations/{operation_id}", headers=auth(key))
    assert answer.status_code == 200, answer.text
    shown: dict[str, object] = answer.json()
    return shown


def busiest_worker(fair_api: FileApi) -> int | None:
    """The conversion worker of the operations process that is using the CPU now (None: none is)."""
    workers = [pid for pid in tree(fair_api.operations.pid) if pid != fair_api.operations.pid]
    before = {pid: cpu_seconds(pid) for pid in workers}
    time.sleep(0.5)
    used = {pid: cpu_seconds(pid) - before[pid] for pid in workers if pid in before}
    busy = [pid for pid, seconds in used.items() if seconds > BUSY_CPU_SECONDS]
    return max(busy, key=lambda pid: used[pid]) if busy else None


def test_small_operations_of_one_account_end_while_anothers_long_ones_run(fair_api: FileApi, long_input: bytes) -> None:
    # GIVEN a pro account (one operation at a time) that queues four long operations, then a business account
    # that queues three small ones behind them
    hoarder = create_key(fair_api.store, email="hoarder@example.com", plan="pro")  # burst 15: no 429 here
    neighbour = create_key(fair_api.store, email="neighbour@example.com", plan="business")
    with httpx.Client(base_url=fair_api.url, timeout=60) as client:
        image = upload(client, hoarder, long_input, content_type="image/jpeg")
        document = upload(client, neighbour, pdf_with_pages(2), content_type="application/pdf")
        long_ones = [long_operation(client, hoarder, image) for _ in range(LONG_OPERATIONS)]
        small_ones = []
        for _ in range(3):
            answer = client.post(f"/v1/pdf/split?upload={document}&ranges=1,2", headers=auth(neighbour))
            assert answer.status_code == 202, answer.text
            small_ones.append(answer.json()["id"])
        # WHEN the small ones have ended
        small_ended = [ended(client, neighbour, operation_id) for operation_id in small_ones]
        long_states = [status_of(client, hoarder, operation_id)["status"] for operation_id in long_ones]
        # THEN they succeeded while the long ones were still waiting or running (one at a time, its plan's cap)
        assert [operation["status"] for operation in small_ended] == ["succeeded"] * 3
        assert long_states.count("running") >= LONG_OPERATIONS - 1, long_states
        for operation_id in long_ones:  # cancelled: the rest of the module needs the workers
            assert client.delete(f"/v1/operations/{operation_id}", headers=auth(hoarder)).status_code == 204


def test_a_cancelled_operations_conversion_stops_and_its_time_is_reported(fair_api: FileApi, long_input: bytes) -> None:
    key = create_key(fair_api.store, email="canceller@example.com", plan="business")
    with httpx.Client(base_url=fair_api.url, timeout=60) as client:
        image = upload(client, key, long_input, content_type="image/jpeg")
        operation_id = long_operation(client, key, image)
        # GIVEN its conversion is under way in a worker
        deadline = time.monotonic() + 60
        worker = None
        while worker is None and time.monotonic() < deadline:
            worker = busiest_worker(fair_api)
        assert worker is not None, "the conversion never started"
        # WHEN it is cancelled
        cancelled_at = time.monotonic()
        assert client.delete(f"/v1/operations/{operation_id}", headers=auth(key)).status_code == 204
        # THEN its worker is killed within a second (and a margin), and the operation says how long it ran
        while alive(worker) and time.monotonic() - cancelled_at < 30:
            time.sleep(0.05)
        stopped_after = time.monotonic() - cancelled_at
        assert stopped_after < STOPPED_BOUND_SECONDS
        reported = status_of(client, key, operation_id)
        while "ranSeconds" not in reported and time.monotonic() - cancelled_at < 30:
            time.sleep(0.1)
            reported = status_of(client, key, operation_id)
    assert reported["status"] == "cancelled"
    ran = reported["ranSeconds"]
    assert isinstance(ran, float) and ran > 0
