"""A pipeline against the same conversions run one by one as operations, on the same scan-like PDF, in the same run.

The pipeline: merge the scan with itself, compress, watermark, as one POST /v1/pipelines over one upload. One by
one: the same three as three operations, each result downloaded and uploaded again as the next one's input, as
a client does it. Both on moto's S3 and SQS, their work run by the executor in this process's conversion
workers. Time: from the first request to the last result fetched; bytes: every byte that crosses S3 (the
service's own GETs and PUTs, counted through botocore's events, and the client's uploads and downloads).
Goal: the pipeline's time at most the one-by-one's, and its S3 bytes its input plus its output alone.

    python -m bench.pipelines       # the rows alone
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.scoreboard import Goal, record

PAGES = 600
IMAGE_BYTES = 100_000  # about 60 MB of scan; merged with itself, 120 MB
TIME_GOAL = Goal(max_ratio=1.0)
BYTES_GOAL = Goal(max_ratio=1.0)
STAGES = [
    {"run": "pdf/merge"},
    {"run": "pdf/compress", "options": {"stripMetadata": True}},
    {"run": "pdf/watermark", "options": {"text": "DRAFT"}},
]


@dataclass
class Moved:
    """Bytes that crossed S3: the service's (its clients' PUT and GET bodies) and the client's."""

    service: int = 0
    client: int = 0

    @property
    def total(self) -> int:
        return self.service + self.client


@dataclass(frozen=True)
class Measured:
    seconds: float
    moved: Moved


@contextmanager
def _served(endpoint: str) -> Iterator[tuple[Any, Any, str, Moved]]:
    """The composed API and an executor over moto at `endpoint`: (TestClient, QueueConsumer, key, bytes moved)."""
    from fastapi.testclient import TestClient

    from fileapi.file_services import build_file_services
    from fileapi.local.queues import QueueConsumer
    from fileapi.local.server import create_local_app
    from fileapi.metering.admin import create_key
    from fileapi.metering.dynamo.connect import dynamo_stores
    from fileapi.metering.meter import Meter
    from fileapi.operations.aws import create_local_resources
    from fileapi.services import run_in_worker, stop_workers, use_file_services, use_stores
    from fileapi.settings import load_settings
    from fileapi.storage.table import DynamoTable, create_client, create_table

    settings = dataclasses.replace(load_settings(), s3_endpoint=endpoint, sqs_endpoint=endpoint)
    resources = create_local_resources(settings, prefix=f"p{uuid.uuid4().hex[:8]}-")
    settings = dataclasses.replace(
        settings, bucket=resources.bucket, operations_queue_url=resources.operations_queue_url,
        webhooks_queue_url=resources.webhooks_queue_url, webhooks_dlq_url=resources.webhooks_dlq_url,
    )  # fmt: skip
    table_name = f"fileapi-pipelines-{uuid.uuid4().hex[:8]}"
    client = create_client(region="us-east-1", endpoint_url=endpoint)
    create_table(client, table_name)
    table = DynamoTable(table_name, client)
    stores = dynamo_stores(table)
    services = build_file_services(settings, table)
    moved = Moved()
    _count_bytes(services.uploads.s3, moved)
    use_stores(stores)
    use_file_services(services)
    try:
        key = create_key(stores.accounts, email=f"pipes-{uuid.uuid4().hex[:6]}@example.com", plan="business")
        executor = services.executor(Meter(stores.admission), run_in_worker)
        assert settings.operations_queue_url is not None
        consumer = QueueConsumer(services.operations.sqs, settings.operations_queue_url, executor.handle)
        with TestClient(create_local_app()) as api:
            yield api, consumer, key, moved
    finally:
        stop_workers()
        use_stores(None)
        use_file_services(None)


def _count_bytes(s3: Any, moved: Moved) -> None:
    """Count the bodies of the service's PutObject (sent) and GetObject (received) calls."""

    def sent(params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name in ("PutObject", "UploadPart"):
            body = params.get("body")
            moved.service += (
                len(body)
                if isinstance(body, bytes | bytearray)
                else int(params.get("headers", {}).get("Content-Length", 0))
            )

    def received(http_response: Any, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "GetObject":
            moved.service += int(parsed.get("ContentLength", 0))

    s3.meta.events.register("before-call.s3", sent)
    s3.meta.events.register("after-call.s3", received)


def _upload(api: Any, key: str, data: bytes, moved: Moved) -> str:
    headers = {"Authorization": f"Bearer {key}"}
    made = api.post(
        "/v1/uploads",
        headers=headers,
        json={"filename": "scan.pdf", "contentType": "application/pdf", "size": len(data)},
    ).json()
    httpx.post(
        made["url"], data=made["fields"], files={"file": ("scan.pdf", data, "application/pdf")}, timeout=600
    ).raise_for_status()
    moved.client += len(data)
    return str(made["id"])


def _ended(api: Any, key: str, consumer: Any, answer: httpx.Response) -> dict[str, Any]:
    if answer.status_code != 202:
        raise RuntimeError(f"not accepted: {answer.status_code} {answer.text[:300]}")
    consumer.poll_once()
    ended: dict[str, Any] = api.get(answer.headers["Location"], headers={"Authorization": f"Bearer {key}"}).json()
    if ended["status"] != "succeeded":
        raise RuntimeError(f"ended {ended['status']}: {ended.get('error')}")
    return ended


def _download(url: str, moved: Moved) -> bytes:
    data = httpx.get(url, timeout=600).content
    moved.client += len(data)
    return data


def run_pipeline(api: Any, key: str, consumer: Any, moved: Moved, document: bytes) -> Measured:
    started = time.perf_counter()
    upload = _upload(api, key, document, moved)
    body = {"inputs": [{"upload": upload}, {"upload": upload}], "stages": STAGES}
    ended = _ended(api, key, consumer, api.post("/v1/pipelines", json=body, headers={"Authorization": f"Bearer {key}"}))
    _download(ended["result"]["url"], moved)
    return Measured(time.perf_counter() - started, dataclasses.replace(moved))


def run_one_by_one(api: Any, key: str, consumer: Any, moved: Moved, document: bytes) -> Measured:
    headers = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    upload = _upload(api, key, document, moved)
    merged = _ended(api, key, consumer, api.post(f"/v1/pdf/merge?upload={upload}&upload={upload}", headers=headers))
    upload = _upload(api, key, _download(merged["result"]["url"], moved), moved)
    compressed = _ended(
        api, key, consumer, api.post(f"/v1/pdf/compress?upload={upload}&stripMetadata=true", headers=headers)
    )
    upload = _upload(api, key, _download(compressed["result"]["url"], moved), moved)
    marked = _ended(api, key, consumer, api.post(f"/v1/pdf/watermark?upload={upload}&text=DRAFT", headers=headers))
    _download(marked["result"]["url"], moved)
    return Measured(time.perf_counter() - started, dataclasses.replace(moved))


def _fresh(moved: Moved) -> Moved:
    moved.service = moved.client = 0
    return moved


def bench_pipelines(endpoint: str, tmp: Path) -> None:
    """Print and record the rows: the pipeline's time against the one-by-one's, and its S3 bytes against its
    input and output."""
    from tests.large_inputs import scan_like_pdf
    from tests.operations.helpers import pdf_with_pages

    document = scan_like_pdf(tmp / "scan.pdf", pages=PAGES, image_bytes=IMAGE_BYTES).read_bytes()
    with _served(endpoint) as (api, consumer, key, moved):
        run_pipeline(api, key, consumer, _fresh(moved), pdf_with_pages(2))  # warm: the workers, the imports
        pipeline = run_pipeline(api, key, consumer, _fresh(moved), document)
        one_by_one = run_one_by_one(api, key, consumer, _fresh(moved), document)
    final = pipeline.moved.client - len(document)  # the client's download: the final file
    ends = 2 * (len(document) + final)  # input and output, each in and out of S3 once
    megabytes = len(document) / 1e6
    print(f"\nPipelines: merge a {megabytes:.0f} MB scan with itself -> compress -> watermark")
    print(f"  pipeline    {pipeline.seconds:7.2f} s, S3 bytes {pipeline.moved.total / 1e6:8.1f} MB")
    print(f"  one by one  {one_by_one.seconds:7.2f} s, S3 bytes {one_by_one.moved.total / 1e6:8.1f} MB")
    print(f"  input + output through S3 (each in and out): {ends / 1e6:.1f} MB")
    record("Pipelines", f"3 stages on a {megabytes:.0f} MB scan, time", pipeline.seconds, "s", TIME_GOAL,
           anchor=one_by_one.seconds, anchor_name="3 operations one by one")  # fmt: skip
    record("Pipelines", f"3 stages on a {megabytes:.0f} MB scan, bytes through S3", pipeline.moved.total / 1e6, "MB",
           BYTES_GOAL, anchor=ends / 1e6, anchor_name="input + output, in and out once")  # fmt: skip


def main() -> None:
    import os

    from fileapi.local import dynamo

    process, endpoint = dynamo.start_process()
    try:
        for name, value in dynamo.LOCAL_CREDENTIALS.items():
            os.environ.setdefault(name, value)
        with tempfile.TemporaryDirectory() as tmp:
            bench_pipelines(endpoint, Path(tmp))
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
