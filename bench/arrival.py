"""/health and a light request on a real `fileapi serve` while connections idle and the workers are saturated (issue
36): 300 connections that began a request and never ended it, then 4 clients resizing 40 MP JPEGs without a pause.
The goal: /health within 250 ms at p99 either way; a light request's p99 near its own when alone."""

from __future__ import annotations

import io
import os
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx

from bench.scoreboard import Goal, record
from bench.timing import wait_for_health
from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.metering.admin import create_key
from fileapi.metering.dynamo.connect import dynamo_stores

HEALTH_GOAL_MS = 250.0
IDLE_CONNECTIONS = 300
HEAVY_CLIENTS = 4
SAMPLES = 200


def _jpeg_40_mp() -> bytes:
    from PIL import Image

    side = (7300, 5500)
    small = Image.frombytes("RGB", (side[0] // 32, side[1] // 32), os.urandom((side[0] // 32) * (side[1] // 32) * 3))
    out = io.BytesIO()
    small.resize(side, Image.Resampling.BILINEAR).save(out, "JPEG", quality=75)
    return out.getvalue()


def _png_40() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (40, 40), (10, 120, 200)).save(out, "PNG")
    return out.getvalue()


def _timed(client: httpx.Client, samples: int, send: str, **kwargs: object) -> list[float]:
    seconds = []
    for _ in range(samples):
        started = time.perf_counter()
        answer = client.request(send, **kwargs)  # type: ignore[arg-type]
        seconds.append(time.perf_counter() - started)
        if answer.status_code != 200:
            raise RuntimeError(f"{kwargs.get('url')}: {answer.status_code} {answer.text[:200]}")
        time.sleep(0.01)
    return seconds


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


@contextmanager
def _idle(base: str, count: int) -> Iterator[None]:
    """`count` connections that began a request's headers and never end them."""
    port = int(base.rsplit(":", 1)[1])
    with ExitStack() as stack:
        for _ in range(count):
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: bench\r\n")
        yield


@contextmanager
def _saturated(base: str, key: str) -> Iterator[list[int]]:
    """`HEAVY_CLIENTS` clients resizing a 40 MP JPEG to 800 px, one request after another; their statuses."""
    body = _jpeg_40_mp()
    stop = threading.Event()
    statuses: list[int] = []

    def heavy() -> None:
        with httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {key}"}) as client:
            while not stop.is_set():
                answer = client.post("/v1/image/resize?width=800", content=body, headers={"Content-Type": "image/jpeg"})
                statuses.append(answer.status_code)

    threads = [threading.Thread(target=heavy) for _ in range(HEAVY_CLIENTS)]
    for thread in threads:
        thread.start()
    time.sleep(3)  # every worker busy, the others' requests waiting
    try:
        yield statuses
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def bench_arrival(endpoint: str) -> None:
    """The rows: /health p50 and p99 alone, with 300 idle connections, and under saturation; another key's small
    resize (it waits for one heavy job: workers go by turns) and a base64 request (in-process, on the thread
    pool), alone and under saturation."""
    print(
        f"\n/health and a light request on `fileapi serve` ({IDLE_CONNECTIONS} idle connections; "
        f"{HEAVY_CLIENTS} clients resizing 40 MP JPEGs)"
    )
    table = dynamo.local_table("fileapi-bench-arrival", endpoint)
    accounts = dynamo_stores(table).accounts
    key = create_key(accounts, email="arrival@example.com", plan="business", quota=10_000_000)
    heavy_key = create_key(accounts, email="heavy@example.com", plan="business", quota=10_000_000)
    port = dynamo.free_port()
    server = start_api_server(port, endpoint=endpoint, table=table.table_name)
    base = f"http://127.0.0.1:{port}"
    light = {"url": "/v1/image/resize?width=20", "content": _png_40(), "headers": {"Content-Type": "image/png"}}
    encode = {"url": "/v1/data/base64-encode", "content": os.urandom(1024)}  # in-process work, on the thread pool
    try:
        wait_for_health(base)
        with httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
            alone = _timed(client, SAMPLES, "GET", url="/health")
            light_alone = _timed(client, SAMPLES // 2, "POST", **light)
            encode_alone = _timed(client, SAMPLES, "POST", **encode)
            with _idle(base, IDLE_CONNECTIONS):
                idle = _timed(client, SAMPLES, "GET", url="/health")
            with _saturated(base, heavy_key) as statuses:  # another key's: workers are shared by turns
                busy = _timed(client, SAMPLES, "GET", url="/health")
                light_busy = _timed(client, SAMPLES // 4, "POST", **light)
                encode_busy = _timed(client, SAMPLES, "POST", **encode)
    finally:
        server.terminate()
        server.wait(timeout=60)
    for name, values in (("alone", alone), (f"{IDLE_CONNECTIONS} idle connections", idle), ("saturated", busy)):
        print(f"  /health {name:<24} p50 {statistics.median(values) * 1e3:7.1f} ms  p99 {_p99(values) * 1e3:7.1f} ms")
    for name, values in (
        ("resize 40x40, alone", light_alone),
        ("resize 40x40, saturated", light_busy),
        ("base64 1 KiB, alone", encode_alone),
        ("base64 1 KiB, saturated", encode_busy),
    ):
        print(f"  {name:<32} p50 {statistics.median(values) * 1e3:7.1f} ms  p99 {_p99(values) * 1e3:7.1f} ms")
    print(f"  (the heavy resizes answered {sorted(set(statuses))})")
    record("Arrival", f"/health p99, {IDLE_CONNECTIONS} idle connections", _p99(idle) * 1e3, "ms",
           Goal(max_value=HEALTH_GOAL_MS), anchor=_p99(alone) * 1e3, anchor_name="alone")  # fmt: skip
    record("Arrival", f"/health p99, {HEAVY_CLIENTS} clients resizing 40 MP", _p99(busy) * 1e3, "ms",
           Goal(max_value=HEALTH_GOAL_MS), anchor=_p99(alone) * 1e3, anchor_name="alone")  # fmt: skip
    record("Arrival", "another key's 40x40 resize p50, saturated", statistics.median(light_busy) * 1e3, "ms", Goal(),
           anchor=statistics.median(light_alone) * 1e3, anchor_name="alone")  # fmt: skip
    record("Arrival", "base64-encode 1 KiB p99, saturated", _p99(encode_busy) * 1e3, "ms", Goal(),
           anchor=_p99(encode_alone) * 1e3, anchor_name="alone")  # fmt: skip
