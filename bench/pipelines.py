"""A pipeline against the same conversions run one by one as operations, on the same scan-like PDF, in the same run.

The pipeline: merge a 120 MB scan (600 pages of 200 kB images) with itself, compress, watermark, as one
POST /v1/pipelines over one upload given twice. One by one: the same three as three operations, each result
downloaded and uploaded again as the next one's input, as a client does it. Both on moto's S3 and SQS, their
work run by the executor in this process's conversion workers. Time: from the first request to the last result
fetched. Bytes: every object body that crosses S3 (bench.moto_stack's counter: what the service's S3 client
sends in PutObject and UploadPart and receives in GetObject, and the client's own uploads and downloads). Goal:
the pipeline's time at most the one-by-one's, and its S3 bytes exactly its inputs and output crossing once each
way: the client's upload, the service's read of each input, its write of the result, the client's download.

    python -m bench.pipelines       # the rows alone
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bench.moto_stack import Moved, count_s3_bytes, local_api, local_endpoint, moto_stack
from bench.scoreboard import Goal, record

# A 120 MB scan (the bytes of bench.operations' larger file) in 600 pages of 200 kB: merged, 1,200 pages
# (compress takes at most 2,000) and 241 MB.
PAGES = 600
IMAGE_BYTES = 200_000
TIME_GOAL = Goal(max_ratio=1.0)
BYTES_GOAL = Goal(max_ratio=1.0)
STAGES = [
    {"run": "pdf/merge"},
    {"run": "pdf/compress", "options": {"stripMetadata": True}},
    {"run": "pdf/watermark", "options": {"text": "DRAFT"}},
]


def upload(api: Any, key: str, data: bytes, moved: Moved) -> str:
    """Upload `data` as a client does (POST /v1/uploads, then the presigned form); its upload id."""
    headers = {"Authorization": f"Bearer {key}"}
    made = api.post(
        "/v1/uploads",
        headers=headers,
        json={"filename": "scan.pdf", "contentType": "application/pdf", "size": len(data)},
    ).json()
    httpx.post(
        made["url"], data=made["fields"], files={"file": ("scan.pdf", data, "application/pdf")}, timeout=600
    ).raise_for_status()
    moved.client_sent += len(data)
    return str(made["id"])


def ended(api: Any, key: str, answer: httpx.Response, step: Callable[[], object], *, seconds: float = 1800) -> Any:
    """The operation `answer` accepted, once it ended: `step` (the queue's consumer in this process, or a wait
    while another process runs it) between reads of its record.

    :raises RuntimeError: it was not accepted, did not succeed, or did not end within `seconds`.
    """
    if answer.status_code != 202:
        raise RuntimeError(f"not accepted: {answer.status_code} {answer.text[:300]}")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        step()
        read = api.get(answer.headers["Location"], headers={"Authorization": f"Bearer {key}"})
        if read.status_code == 429:  # polled faster than the plan's rate
            time.sleep(float(read.headers.get("Retry-After", "1")))
            continue
        if read.status_code != 200:
            raise RuntimeError(f"GET {answer.headers['Location']}: {read.status_code} {read.text[:300]}")
        shown = read.json()
        if shown["status"] == "succeeded":
            return shown
        if shown["status"] not in ("queued", "running"):
            raise RuntimeError(f"ended {shown['status']}: {shown.get('error')}")
    raise RuntimeError(f"{answer.headers['Location']} did not end within {seconds:g} s")


def download(url: str, moved: Moved) -> bytes:
    data = httpx.get(url, timeout=600).content
    moved.client_received += len(data)
    return data


def run_pipeline(api: Any, key: str, step: Callable[[], object], moved: Moved, document: bytes) -> Any:
    """The pipeline over `document` as a client runs it: upload, POST /v1/pipelines, its result downloaded; the
    operation as it ended."""
    uploaded = upload(api, key, document, moved)
    body = {"inputs": [{"upload": uploaded}, {"upload": uploaded}], "stages": STAGES}
    shown = ended(api, key, api.post("/v1/pipelines", json=body, headers={"Authorization": f"Bearer {key}"}), step)
    download(shown["result"]["url"], moved)
    return shown


def run_one_by_one(api: Any, key: str, step: Callable[[], object], moved: Moved, document: bytes) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    uploaded = upload(api, key, document, moved)
    merged = ended(api, key, api.post(f"/v1/pdf/merge?upload={uploaded}&upload={uploaded}", headers=headers), step)
    uploaded = upload(api, key, download(merged["result"]["url"], moved), moved)
    compressed = ended(api, key, api.post(f"/v1/pdf/compress?upload={uploaded}&stripMetadata=true", headers=headers),
                       step)  # fmt: skip
    uploaded = upload(api, key, download(compressed["result"]["url"], moved), moved)
    marked = ended(api, key, api.post(f"/v1/pdf/watermark?upload={uploaded}&text=DRAFT", headers=headers), step)
    download(marked["result"]["url"], moved)


def bench_pipelines(endpoint: str, tmp: Path) -> None:
    """Print and record the rows: the pipeline's time against the one-by-one's, and its S3 bytes against its
    inputs and output crossing once each way."""
    from tests.large_inputs import scan_like_pdf
    from tests.operations.helpers import pdf_with_pages

    document = scan_like_pdf(tmp / "scan.pdf", pages=PAGES, image_bytes=IMAGE_BYTES).read_bytes()
    with moto_stack(endpoint, name="pipelines") as stack, local_api() as api:
        key = stack.new_key("pipelines")
        step = stack.consumer().poll_once
        moved = Moved()
        count_s3_bytes(stack.services.uploads.s3, moved)
        run_pipeline(api, key, step, moved, pdf_with_pages(2))  # warm: the workers, the imports
        moved.reset()
        started = time.perf_counter()
        shown = run_pipeline(api, key, step, moved, document)
        pipeline_seconds, pipeline = time.perf_counter() - started, dataclasses.replace(moved)
        moved.reset()
        started = time.perf_counter()
        run_one_by_one(api, key, step, moved, document)
        one_by_one_seconds, one_by_one = time.perf_counter() - started, dataclasses.replace(moved)
    size, result = len(document), int(shown["result"]["size"])
    # Each crossing once: the client's upload, the service's one read of it (the pipeline names it twice), its write
    # of the result, the client's download of it.
    expected = Moved(service_sent=result, service_received=size, client_sent=size, client_received=result)
    megabytes = size / 1e6
    print(f"\nPipelines: merge a {megabytes:.0f} MB scan with itself -> compress -> watermark ({result / 1e6:.0f} MB)")
    print(f"  pipeline    {pipeline_seconds:7.2f} s, S3 bytes {pipeline.total / 1e6:8.1f} MB")
    print(f"  one by one  {one_by_one_seconds:7.2f} s, S3 bytes {one_by_one.total / 1e6:8.1f} MB")
    for name in ("client_sent", "service_received", "service_sent", "client_received"):
        print(f"  pipeline's {name.replace('_', ' '):<17} {getattr(pipeline, name):>12,} B, "
              f"expected {getattr(expected, name):>12,} B")  # fmt: skip
    verdict = "equal" if pipeline == expected else f"NOT equal ({pipeline.total - expected.total:+,} B)"
    print(f"  S3 bytes = upload + its one read + result write + download = {expected.total:,} B: {verdict}")
    record("Pipelines", f"3 stages on a {megabytes:.0f} MB scan, time", pipeline_seconds, "s", TIME_GOAL,
           anchor=one_by_one_seconds, anchor_name="3 operations one by one")  # fmt: skip
    record("Pipelines", f"3 stages on a {megabytes:.0f} MB scan, bytes through S3", pipeline.total / 1e6, "MB",
           BYTES_GOAL, anchor=expected.total / 1e6, anchor_name="inputs + output, each crossing once")  # fmt: skip


def main() -> None:
    with local_endpoint() as endpoint, tempfile.TemporaryDirectory() as tmp:
        bench_pipelines(endpoint, Path(tmp))


if __name__ == "__main__":
    main()
