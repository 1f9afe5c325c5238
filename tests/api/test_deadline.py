"""Conversions answer within FILEAPI_DEADLINE_SECONDS: a conversion still running then is stopped (its worker is
killed) and answered 413 too_large, not counted, while the server keeps answering."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from fileapi.convert import deadline
from fileapi.errors import OutOfTime, TooLarge
from fileapi.services import get_workers
from fileapi.settings import get_settings
from tests import worker_jobs
from tests.helpers import auth, replace_converter


def test_check_raises_once_the_budget_is_spent() -> None:
    deadline.check()  # no budget: nothing to spend
    with deadline.budget(60):
        deadline.check()
    with deadline.budget(0.01), pytest.raises(TooLarge, match=r"within the 0.01 s limit"):
        time.sleep(0.02)
        deadline.check()
    deadline.check()  # the budget ended with its block


def test_check_counts_the_cpu_time_of_every_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    cpu = [100.0]
    monkeypatch.setattr(time, "process_time", lambda: cpu[0])
    with deadline.budget(10):
        deadline.check()
        cpu[0] += 10.5  # two threads busy for 5.25 s: a worker's CPU limit counts both
        with pytest.raises(OutOfTime, match="did not finish within the 10 s limit"):
            deadline.check()


@pytest.fixture()
def endless_barcode_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Codes function's barcode reader replaced by one that computes for 10 s without checking any budget
    (as native code does)."""
    replace_converter(monkeypatch, "/v1/barcode/read", worker_jobs.read_for_ten_seconds)


@pytest.fixture()
def one_second_deadline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FILEAPI_DEADLINE_SECONDS", "1")
    get_settings.cache_clear()
    yield
    monkeypatch.delenv("FILEAPI_DEADLINE_SECONDS")
    get_settings.cache_clear()


def test_a_conversion_past_the_deadline_is_stopped_answered_413_and_not_counted(
    api: TestClient, key: str, endless_barcode_read: None, one_second_deadline: None
) -> None:
    # GIVEN a conversion that would compute for 10 s, and a deadline of 1 s
    used = api.get("/v1/usage", headers=auth(key)).json()["used_this_month"]
    image = io.BytesIO()
    Image.new("L", (64, 64), 255).save(image, "PNG")
    health: list[float] = []
    done = threading.Event()

    def probe() -> None:  # the server's other answers while the conversion runs
        while not done.is_set():
            started = time.monotonic()
            assert api.get("/health").status_code == 200
            health.append(time.monotonic() - started)
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    # WHEN it is asked for
    started = time.monotonic()
    try:
        cut = api.post("/v1/barcode/read", content=image.getvalue(), headers=auth(key))
    finally:
        cut_seconds = time.monotonic() - started
        done.set()
        prober.join()
    # THEN the answer comes at the deadline: 413 too_large, in our words, and not counted
    assert (cut.status_code, cut.json()["error"]) == (413, "too_large")
    assert "within the 1 s limit" in cut.json()["message"]
    assert cut.headers["X-Quota-Remaining"]
    assert 1 <= cut_seconds < 5, cut_seconds
    assert api.get("/v1/usage", headers=auth(key)).json()["used_this_month"] == used
    # AND the server answered the whole time, and no worker is left computing
    assert len(health) >= 5 and max(health) < 1.0, health
    assert all(_cpu_seconds(pid) < 1 for pid in get_workers().pids())


def _cpu_seconds(pid: int) -> float:
    import os

    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().split(") ")[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
