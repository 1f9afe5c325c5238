"""The issue's large files on real processes (`fileapi serve` and `fileapi operations` on moto's S3 and SQS): a
1,200-page scan-like PDF of about 120 MB uploaded, split, merged with itself and compressed; a 100 MB PNG converted
to WebP. Each result's SHA-256 is the one its operation reports, and the two processes' trees (API server,
operations process, their conversion workers) grow by less than 1 GiB. Marked `large`: `make test` runs them, and
`make test-large` runs only them."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fileapi.metering.admin import create_key
from tests.helpers import auth
from tests.large_inputs import noise_png, scan_like_pdf
from tests.process_tree import tree_rss_mib
from tests.server.conftest import FileApi
from tests.server.operations_client import CHUNK_BYTES, ended, sha256_of, upload

pytestmark = [pytest.mark.server, pytest.mark.large]
MEMORY_GROWTH_BOUND_MIB = 1024
PAGES = 1200


class PeakMemory:
    """The largest resident memory of the server's and the operations process's trees together, sampled."""

    def __init__(self, file_api: FileApi) -> None:
        self.pids = (file_api.server.pid, file_api.operations.pid)
        self.baseline = self.now()
        self.peak = self.baseline
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample)
        self.thread.start()

    def now(self) -> float:
        return sum(tree_rss_mib(pid) for pid in self.pids)

    def _sample(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, self.now())
            self.stop.wait(0.05)

    def growth_mib(self) -> float:
        self.stop.set()
        self.thread.join()
        return self.peak - self.baseline


@pytest.fixture()
def client(file_api: FileApi) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=file_api.url, timeout=600) as session:
        yield session


def _run(client: httpx.Client, key: str, route: str) -> dict[str, Any]:
    answer = client.post(route, headers=auth(key))
    assert answer.status_code == 202, answer.text
    operation = ended(client, key, answer.json()["id"])
    assert operation["status"] == "succeeded", operation
    for result in operation["results"]:
        assert sha256_of(result["url"]) == (result["sha256"], result["size"])
    return operation


def _pages(url: str, path: Path) -> int | None:
    """The page count qpdf reads in the file at `url` (None without qpdf)."""
    if shutil.which("qpdf") is None:
        return None
    with httpx.stream("GET", url, timeout=600) as answer, path.open("wb") as out:
        for chunk in answer.iter_bytes(CHUNK_BYTES):
            out.write(chunk)
    return int(subprocess.run(["qpdf", "--show-npages", str(path)], capture_output=True, check=True).stdout)


def test_a_1200_page_scan_is_split_merged_and_compressed_within_1_gib(
    file_api: FileApi, client: httpx.Client, tmp_path: Path
) -> None:
    key = create_key(file_api.store, email="scan@example.com", plan="business")
    source = scan_like_pdf(tmp_path / "scan.pdf", pages=PAGES)
    assert source.stat().st_size > 100_000_000
    memory = PeakMemory(file_api)
    scan = upload(client, key, source, content_type="application/pdf")
    split = _run(client, key, f"/v1/pdf/split?upload={scan}&ranges=1-600,601-1200")
    merged = _run(client, key, f"/v1/pdf/merge?upload={scan}&upload={scan}")
    compressed = _run(client, key, f"/v1/pdf/compress?upload={scan}")
    growth = memory.growth_mib()
    print(f"GROWTH {growth:.0f} MiB of {memory.baseline:.0f}")
    assert growth < MEMORY_GROWTH_BOUND_MIB, f"the trees grew by {growth:.0f} MiB"
    assert [part["field"] for part in split["results"]] == ["pdfs[0]", "pdfs[1]"]
    assert compressed["details"]["originalSize"] == source.stat().st_size
    pages = _pages(merged["result"]["url"], tmp_path / "merged.pdf")
    if pages is None:
        pytest.skip("qpdf is not installed: the merged document's page count is not checked (make tools)")
    assert pages == 2 * PAGES


def test_a_100_mb_png_becomes_webp_within_1_gib(file_api: FileApi, client: httpx.Client, tmp_path: Path) -> None:
    key = create_key(file_api.store, email="png@example.com", plan="business")
    source = noise_png(tmp_path / "big.png", target_bytes=100_000_000)
    assert source.stat().st_size >= 100_000_000
    memory = PeakMemory(file_api)
    image = upload(client, key, source, content_type="image/png")
    converted = _run(client, key, f"/v1/image/convert?upload={image}&to=webp")
    growth = memory.growth_mib()
    print(f"GROWTH {growth:.0f} MiB of {memory.baseline:.0f}")
    assert converted["result"]["contentType"] == "image/webp"
    with httpx.stream("GET", converted["result"]["url"]) as answer:
        head = next(answer.iter_bytes(16))
    assert head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    assert growth < MEMORY_GROWTH_BOUND_MIB, f"the trees grew by {growth:.0f} MiB"
