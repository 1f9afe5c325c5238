"""A bounded local load test: a mixed workload against a local server over loopback.

It runs for `seconds` and at least until `min_requests` have been answered (but never past
`max_seconds`), from `concurrency` client threads, and samples the resident memory of the server's
processes. tests/server/test_load.py checks the outcome of a fixed number of requests (answers and memory,
no time); `make load` prints throughput and latency:

    python -m tools.load [SECONDS] [MIN_REQUESTS]
"""

from __future__ import annotations

import io
import json
import os
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx

JSON = "application/json"


@dataclass(frozen=True)
class Call:
    name: str
    method: str
    path: str
    body: bytes = b""
    params: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/octet-stream"
    starter: bool = False  # sent with the starter key (burst 5, 2/s): 429 rate_limited expected
    expected: frozenset[int] = frozenset({200})


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 220)).save(out, "PNG")
    return out.getvalue()


def _pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def workload() -> list[Call]:
    """The mix, one entry per request in a round (so its proportions)."""
    json_doc = json.dumps({"items": [{"id": index, "price": index * 1.5} for index in range(50)]}).encode()
    return [
        Call("health", "GET", "/health"),
        Call("base64-encode 1 KiB", "POST", "/v1/data/base64-encode", b"x" * 1024),
        Call("json-format", "POST", "/v1/data/json-format", json_doc, content_type=JSON),
        Call("image resize 64x48", "POST", "/v1/image/resize", _png(), {"width": "32"}),
        Call("pdf info", "POST", "/v1/pdf/info", _pdf(), content_type="application/pdf"),
        Call("qr generate", "POST", "/v1/qr/generate", b'{"text": "https://example.com"}', content_type=JSON),
        Call("file hash", "POST", "/v1/file/hash", b"y" * 4096),
        Call("word count", "POST", "/v1/text/word-count", b"one two three. four five.", content_type="text/plain"),
        Call("color convert", "POST", "/v1/color/convert", b'{"color": "teal"}', content_type=JSON),
        Call("invalid image", "POST", "/v1/image/convert", b"not an image", {"to": "png"}, expected=frozenset({400})),
        Call("invalid base64", "POST", "/v1/data/base64-decode", b"%%%", content_type="text/plain",
             expected=frozenset({400})),
        Call("starter key", "POST", "/v1/data/base64-encode", b"z", starter=True, expected=frozenset({200, 429})),
    ]  # fmt: skip


def process_tree_rss_mib(pid: int) -> float:
    """Resident memory of `pid` and its descendants (Linux /proc)."""
    total_kib = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kib += int(line.split()[1])
        pending += [int(child) for child in children]
    return total_kib / 1024


@dataclass
class Report:
    requests: int
    seconds: float
    throughput: float
    p50_ms: float
    p99_ms: float
    statuses: dict[str, int]
    unexpected: dict[str, int]
    unexpected_answers: dict[str, str]  # the first body of each unexpected (call, status), so a failure says why
    rss_after_warmup_mib: float
    rss_end_mib: float
    requests_between_rss_samples: int
    by_call_p50_ms: dict[str, float]

    @property
    def rss_growth_mib(self) -> float:
        return self.rss_end_mib - self.rss_after_warmup_mib


def run_load(
    base_url: str,
    key: str,
    starter_key: str,
    server_pid: int,
    *,
    seconds: float = 60,
    min_requests: int = 10_000,
    max_seconds: float = 240,
    concurrency: int = 8,
    warmup_requests: int = 1_000,
) -> Report:
    calls = workload()
    lock = threading.Lock()
    latencies: dict[str, list[float]] = {call.name: [] for call in calls}
    statuses: Counter[str] = Counter()
    unexpected: Counter[str] = Counter()
    unexpected_answers: dict[str, str] = {}
    answered = 0
    warm: dict[str, float] = {}
    started = time.monotonic()

    def done() -> bool:
        elapsed = time.monotonic() - started
        return elapsed >= max_seconds or (elapsed >= seconds and answered >= min_requests)

    def client(offset: int) -> None:
        nonlocal answered
        with httpx.Client(base_url=base_url, timeout=60) as http:
            index = offset
            while not done():
                call = calls[index % len(calls)]
                index += 1
                headers = {"Content-Type": call.content_type}
                if call.path.startswith("/v1/"):
                    headers["Authorization"] = f"Bearer {starter_key if call.starter else key}"
                sent = time.perf_counter()
                response = http.request(call.method, call.path, params=call.params, content=call.body or None,
                                        headers=headers)  # fmt: skip
                elapsed = time.perf_counter() - sent
                with lock:
                    answered += 1
                    latencies[call.name].append(elapsed)
                    statuses[str(response.status_code)] += 1
                    if response.status_code not in call.expected:
                        unexpected[f"{call.name}: {response.status_code}"] += 1
                        unexpected_answers.setdefault(f"{call.name}: {response.status_code}", response.text[:500])
                    if answered == warmup_requests:
                        warm["rss"] = process_tree_rss_mib(server_pid)
                        warm["count"] = answered

    threads = [threading.Thread(target=client, args=(offset,)) for offset in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    rss_end = process_tree_rss_mib(server_pid)
    everything = sorted(value for values in latencies.values() for value in values)
    return Report(
        requests=answered,
        seconds=elapsed,
        throughput=answered / elapsed,
        p50_ms=1000 * statistics.median(everything),
        p99_ms=1000 * everything[int(0.99 * (len(everything) - 1))],
        statuses=dict(statuses),
        unexpected=dict(unexpected),
        unexpected_answers=unexpected_answers,
        rss_after_warmup_mib=warm.get("rss", rss_end),
        rss_end_mib=rss_end,
        requests_between_rss_samples=answered - int(warm.get("count", answered)),
        by_call_p50_ms={name: 1000 * statistics.median(values) for name, values in latencies.items() if values},
    )


def describe(report: Report) -> str:
    lines = [
        f"  {report.requests:,} requests in {report.seconds:.1f} s: {report.throughput:.0f} req/s, "
        f"p50 {report.p50_ms:.1f} ms, p99 {report.p99_ms:.1f} ms",
        f"  statuses {report.statuses}; unexpected {report.unexpected or 'none'}",
        *(f"  {call} answered: {body}" for call, body in report.unexpected_answers.items()),
        f"  server RSS {report.rss_after_warmup_mib:.0f} MiB after warm-up, {report.rss_end_mib:.0f} MiB after "
        f"{report.requests_between_rss_samples:,} more requests (growth {report.rss_growth_mib:+.1f} MiB)",
        "  p50 by call: " + ", ".join(f"{name} {value:.1f} ms" for name, value in report.by_call_p50_ms.items()),
    ]
    return "\n".join(lines)


def run_local(*, seconds: float = 60, min_requests: int = 10_000, max_seconds: float = 240, workers: int = 2) -> Report:
    """Start a local DynamoDB endpoint and `fileapi serve --workers N`, load them, stop them."""
    import urllib.request
    import uuid

    from fileapi.local import dynamo
    from fileapi.local.processes import start_api_server
    from fileapi.metering.admin import create_key
    from fileapi.metering.dynamo.connect import dynamo_stores

    for name, value in dynamo.LOCAL_CREDENTIALS.items():
        os.environ.setdefault(name, value)
    moto, endpoint = dynamo.start_process()
    server = None
    try:
        table = f"load-{uuid.uuid4().hex[:8]}"
        dynamo_table = dynamo.local_table(table, endpoint)
        store = dynamo_stores(dynamo_table).accounts
        key = create_key(store, email="load@example.com", plan="business")
        starter = create_key(store, email="load-starter@example.com", plan="starter")
        port = dynamo.free_port()
        server = start_api_server(port, endpoint=endpoint, table=table, workers=workers)
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/health", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        return run_load(
            base_url, key, starter, server.pid, seconds=seconds, min_requests=min_requests, max_seconds=max_seconds
        )
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        moto.terminate()
        moto.wait(timeout=20)


if __name__ == "__main__":
    import sys

    arguments = [float(value) for value in sys.argv[1:3]]
    report = run_local(
        seconds=arguments[0] if arguments else 60, min_requests=int(arguments[1]) if len(arguments) > 1 else 10_000
    )
    print(describe(report))
