"""make bench: stack overhead, Data throughput against command-line tools, cold-start imports,
OCR against the tesseract command, operations on large PDFs against qpdf, a pipeline against its stages run one
by one (time, S3 bytes, peak memory at three sizes), URL inputs and PUT outputs against curl, function sizing and
the cost per million requests and operations (with an operation's own time).

Every figure is a median of repeated runs; ratios compare against a reference measured in the
same run. Nothing here is asserted: targets are read off the report.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.arrival import bench_arrival
from bench.big_images import bench_big_images
from bench.bombs import bench_bombs
from bench.codes import bench_codes, bench_render
from bench.converters import FOUR_MB, bench_base64_path, bench_wordcount
from bench.cost import bench_cost
from bench.exactness import bench_gfm, bench_json, bench_too_large
from bench.fair_workers import bench_fair_workers
from bench.fetch import bench_fetch
from bench.image import bench_image
from bench.isolation import bench_isolation
from bench.metering import bench_metering_costs
from bench.moto_stack import local_endpoint
from bench.ocr import bench_ocr
from bench.operations import bench_operations
from bench.operations_cost import operation_cost_lines
from bench.pdf import bench_pdf
from bench.pdf_images import bench_images_to_pdf
from bench.pipeline_memory import bench_pipeline_memory
from bench.pipelines import bench_pipelines
from bench.quality import bench_quality
from bench.request_path import asgi_request, bench_request_rows
from bench.scoreboard import print_scoreboard, write_performance_doc
from bench.sizing import bench_sizing
from bench.textdiff import bench_textdiff
from bench.timing import command_seconds, median_seconds, row, wait_for_health
from fileapi.convert.encoding import encode_base64
from fileapi.convert.hashing import hash_bytes
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.local.template import PROJECT_ROOT
from fileapi.metering.admin import create_key
from fileapi.metering.dynamo.connect import dynamo_stores, open_table
from fileapi.metering.meter import Meter
from fileapi.services import use_stores
from fileapi.setting_variables import LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS
from fileapi.telemetry import logger

logger.setLevel("WARNING")  # one access record per request would dominate the report


def asgi_call(app: Any, method: str, path: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """One request through an ASGI app, no HTTP client or server in between; returns the status."""
    return asyncio.run(asgi_request(app, method, path, body, headers))


@dataclass(frozen=True)
class MeteredApp:
    """The composed local app with a key on the bench table, and one admission against the same store."""

    app: Any
    headers: list[tuple[bytes, bytes]]
    admit_once: Callable[[], None]

    def post(self, path: str, body: bytes) -> int:
        return asgi_call(self.app, "POST", path, body, self.headers)


def metered_app(endpoint: str) -> MeteredApp:
    from fileapi.local.server import create_local_app

    table = dynamo.local_table("fileapi-bench", endpoint)
    stores = dynamo_stores(table)
    use_stores(stores)
    key = create_key(stores.accounts, email="bench@example.com", plan="business", quota=10_000_000)
    meter = Meter(stores.admission)

    def admit_once() -> None:
        meter.admit(f"Bearer {key}", counted=True, request_id=os.urandom(8).hex())

    return MeteredApp(create_local_app(), [(b"authorization", f"Bearer {key}".encode())], admit_once)


def bench_request_path(endpoint: str) -> None:
    """The request-path rows (bench-quick runs them, and make bench first): the stack's own cost per metered
    request, /health req/s, the Lambda adapter's cost and the cold imports (bench.request_path)."""
    bench_request_rows(endpoint)


def bench_throughput(endpoint: str) -> None:
    print("\nRequests per second: one `fileapi serve` process (one core) + the local DynamoDB endpoint")
    port = dynamo.free_port()
    server = start_api_server(port, endpoint=endpoint, table="fileapi-bench")
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_health(base)
        accounts = dynamo_stores(
            open_table(
                "fileapi-bench",
                region="us-east-1",
                endpoint_url=endpoint,
                read_timeout=LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS,
            )
        )
        key = create_key(accounts.accounts, email="rps@example.com", plan="business", quota=10_000_000)
        body = os.urandom(1024)
        for path, headers, count in (
            ("/health", {}, 2000),
            ("/v1/data/base64-encode", {"Authorization": f"Bearer {key}"}, 1000),
        ):
            results = _load(base + path, body if path != "/health" else None, headers, count)
            print(f"  {path:<28} {results}")
    finally:
        server.terminate()
        server.wait(timeout=10)


def _load(url: str, body: bytes | None, headers: dict[str, str], count: int) -> str:
    latencies: list[float] = []

    def worker(n: int) -> None:
        with httpx.Client(timeout=10) as client:
            for _ in range(n):
                started = time.perf_counter()
                response = client.post(url, content=body, headers=headers) if body else client.get(url)
                latencies.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(worker, [count // 4] * 4))
    elapsed = time.perf_counter() - started
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    return f"{len(latencies) / elapsed:8.0f} req/s   p50 {p50:.2f} ms   p99 {p99:.2f} ms"


def bench_data(tmp: Path) -> None:
    print("\nData throughput on 4 MB inputs (in-process converter vs command-line tool, whole process)")
    blob = tmp / "blob.bin"
    blob.write_bytes(os.urandom(FOUR_MB))
    data = blob.read_bytes()
    ours = median_seconds(lambda: encode_base64(data))
    tool = command_seconds(["base64", "-w0"], stdin_path=str(blob))
    print(row("base64-encode 4 MB", ours, tool, "coreutils base64"))

    bench_json(tmp)


def bench_text(tmp: Path) -> None:
    print("\nText family")
    blob = tmp / "hash.bin"
    blob.write_bytes(os.urandom(FOUR_MB))
    data = blob.read_bytes()
    ours = median_seconds(lambda: hash_bytes(data))
    tool = command_seconds(["sha256sum"], stdin_path=str(blob))
    print(row("sha256 of 4 MB (file/hash)", ours, tool, "sha256sum"))
    if tool:
        print(f"  -> throughput ratio to sha256sum: {tool / ours:.2f} (goal >= 0.8)")
    spec_path = PROJECT_ROOT.parent / "shared" / "corpus" / "commonmark-spec" / "spec.txt"
    if not spec_path.is_file():
        print("  (../shared/corpus/commonmark-spec is absent: Markdown timings skipped)")
        return
    import markdown
    from markdown_it import MarkdownIt

    text = spec_path.read_bytes()
    source = text.decode()
    ours_md = median_seconds(lambda: markdown_to_html(text), repeat=5)
    plain = MarkdownIt("commonmark")
    print(f"  Markdown: CommonMark spec.txt ({len(text) / 1000:.0f} kB)")
    print(row("markdown-to-html (markdown-it-py, GFM)", ours_md))
    print(row("markdown-it-py, CommonMark preset", median_seconds(lambda: plain.render(source), repeat=5)))
    python_markdown = median_seconds(lambda: markdown.markdown(source, extensions=["tables"]), repeat=5)
    print(row("Python-Markdown (tables)", python_markdown, ours_md, "ours"))


def bench_converter_rows(metered: MeteredApp, tmp: Path) -> None:
    bench_wordcount(tmp)
    bench_base64_path(lambda body: metered.post("/v1/data/base64-encode", body), metered.admit_once, tmp)


def main() -> None:
    with local_endpoint() as endpoint:
        metered = metered_app(endpoint)
        bench_request_path(endpoint)
        bench_isolation()
        bench_fair_workers()
        bench_metering_costs(endpoint)
        bench_throughput(endpoint)
        bench_arrival(endpoint)
        with tempfile.TemporaryDirectory() as tmp:
            bench_converter_rows(metered, Path(tmp))
            bench_data(Path(tmp))
            bench_text(Path(tmp))
            bench_textdiff(Path(tmp))
            bench_gfm()
            bench_image(Path(tmp))
            bench_quality(Path(tmp))
            bench_big_images(Path(tmp))
            bench_too_large()
            bench_pdf(Path(tmp))
            bench_images_to_pdf()
            bench_ocr(Path(tmp))
            moved = bench_operations(Path(tmp))
            bench_pipelines(endpoint, Path(tmp))
            bench_pipeline_memory(endpoint, Path(tmp))
            bench_fetch(Path(tmp))
        bench_codes()
        bench_render()
        bench_bombs()
        operation_lines = operation_cost_lines(endpoint, moved["split"].mb_per_second)
        bench_cost(endpoint, bench_sizing(), operation_lines=operation_lines)
        print_scoreboard()
        write_performance_doc(command="make bench")


def quick() -> None:
    """make bench-quick (under 3 minutes): the request-path rows and the fast converter rows."""
    with local_endpoint() as endpoint:
        metered = metered_app(endpoint)
        bench_request_path(endpoint)
        bench_isolation()
        with tempfile.TemporaryDirectory() as tmp:
            bench_converter_rows(metered, Path(tmp))
        print_scoreboard()


if __name__ == "__main__":
    quick() if sys.argv[1:] == ["--quick"] else main()
