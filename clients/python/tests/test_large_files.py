"""Files over the client's threshold go through an upload and an operation against `fileapi run` (moto's S3
and SQS), and answer exactly as the synchronous call does; the steps one by one; failures and the timeout."""

from __future__ import annotations

import asyncio
import hashlib
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import LocalApi
from fileapi_client import AsyncFileApi, FileApi, LargeFiles, OperationTimeout
from fileapi_client.errors import InvalidInput, NotFound
from PIL import Image
from pypdf import PdfReader
from sample_files import pdf, png

pytestmark = pytest.mark.server
# Small enough that the test files (a few KB) go through uploads; the synchronous calls use the default.
THRESHOLD = 100


class Seen:
    """What the progress callbacks were given."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []
        self.statuses: list[str] = []

    def upload(self, sent: int, total: int) -> None:
        self.sent.append((sent, total))

    def status(self, operation: Mapping[str, Any]) -> None:
        self.statuses.append(str(operation["status"]))


@pytest.fixture()
def seen() -> Seen:
    return Seen()


@pytest.fixture()
def sync_api(local_api: LocalApi) -> Iterator[FileApi]:
    with FileApi(local_api.api_key, base_url=local_api.base_url) as client:
        yield client


@pytest.fixture()
def large_api(local_api: LocalApi, seen: Seen) -> Iterator[FileApi]:
    policy = LargeFiles(threshold_bytes=THRESHOLD, on_upload=seen.upload, on_status=seen.status)
    with FileApi(local_api.api_key, base_url=local_api.base_url, large_files=policy) as client:
        yield client


def test_a_file_over_the_threshold_answers_what_the_synchronous_call_answers(
    large_api: FileApi, sync_api: FileApi, seen: Seen
) -> None:
    image = png()
    used = sync_api.usage().data["used_this_month"]
    through_upload = large_api.image_resize(image, width=32, format="webp")
    assert sync_api.usage().data["used_this_month"] == used + 1  # one request, whatever the polls
    at_once = sync_api.image_resize(image, width=32, format="webp")
    assert through_upload.data == at_once.data
    assert (through_upload.status, through_upload.content_type) == (200, "image/webp")
    assert seen.sent[-1] == (len(image), len(image))
    assert seen.statuses[-1] == "succeeded" and set(seen.statuses) <= {"running", "succeeded"}
    assert isinstance(through_upload.quota_remaining, int)


def test_a_path_is_streamed_and_a_json_answer_gets_its_files_back_as_base64(
    large_api: FileApi, sync_api: FileApi, tmp_path: Path, seen: Seen
) -> None:
    source = tmp_path / "three.pdf"
    source.write_bytes(pdf(3))
    split = large_api.pdf_split(source, ranges="1,2-3")
    assert list(split.data) == ["pdfs"]
    assert [len(PdfReader(io.BytesIO(_b64(part))).pages) for part in split.data["pdfs"]] == [1, 2]
    assert seen.sent[-1] == (source.stat().st_size, source.stat().st_size)
    assert len(sync_api.pdf_split(source, ranges="1,2-3").data["pdfs"]) == 2


def test_a_favicon_set_comes_back_with_its_dotted_file_names(large_api: FileApi, sync_api: FileApi) -> None:
    image = png(64, 64)
    through_upload = large_api.image_favicon_set(image)
    at_once = sync_api.image_favicon_set(image)
    assert through_upload.data == at_once.data
    assert sorted(through_upload.data["pngs"]) == sorted(at_once.data["pngs"])


def test_compress_keeps_its_sizes_beside_the_document(large_api: FileApi) -> None:
    document = pdf(2)
    compressed = large_api.pdf_compress(io.BytesIO(document))
    assert set(compressed.data) == {"bytes", "originalSize", "compressedSize", "savedPercent"}
    assert compressed.data["originalSize"] == len(document)
    assert compressed.data["compressedSize"] == len(_b64(compressed.data["bytes"]))
    assert len(PdfReader(io.BytesIO(_b64(compressed.data["bytes"]))).pages) == 2


def test_merge_uploads_each_file_in_order(large_api: FileApi, tmp_path: Path) -> None:
    first, second = tmp_path / "one.pdf", tmp_path / "two.pdf"
    first.write_bytes(pdf(1))
    second.write_bytes(pdf(2))
    merged = large_api.pdf_merge([first, second, first])
    assert merged.content_type == "application/pdf"
    assert len(PdfReader(io.BytesIO(merged.data)).pages) == 4


def test_text_bodies_and_streams_of_chunks_go_through_uploads_too(large_api: FileApi, sync_api: FileApi) -> None:
    text = "Hello world. How are you? " * 20
    assert large_api.text_word_count(text).data == sync_api.text_word_count(text).data
    chunks = (bytes([index]) * 50 for index in range(4))
    digest = large_api.file_hash(chunks, algorithm="sha256").data
    assert digest["hex"] == hashlib.sha256(b"".join(bytes([index]) * 50 for index in range(4))).hexdigest()


def test_a_failed_operation_raises_the_class_of_its_code_with_its_id(large_api: FileApi) -> None:
    with pytest.raises(InvalidInput) as caught:
        large_api.pdf_split(b"%PDF-1.4 not really a PDF" * 10, ranges="1")
    assert caught.value.code == "invalid_input"
    assert caught.value.operation_id is not None and caught.value.operation_id.startswith("op_")


def test_the_steps_one_by_one_and_a_wait_that_times_out(sync_api: FileApi, tmp_path: Path) -> None:
    source = tmp_path / "pages.pdf"
    source.write_bytes(pdf(40))
    upload_id = sync_api.upload_file(source, content_type="application/pdf")
    assert upload_id.startswith("upl_")
    accepted = sync_api.submit_operation("pdf_render_page", [upload_id], pages="1-40", dpi=150)
    assert accepted["status"] == "running" and accepted["route"] == "/v1/pdf/render-page"
    # Forty pages at 150 dpi take far longer than one poll: the wait ends with the operation still running.
    with pytest.raises(OperationTimeout) as caught:
        sync_api.wait_operation(accepted["id"], wait_seconds=0.001)
    assert caught.value.operation_id == accepted["id"]
    assert accepted["id"] in str(caught.value)
    ended = sync_api.wait_operation(caught.value.operation_id)
    rendered = sync_api.operation_result(ended)
    assert [page["page"] for page in rendered.data["pages"]] == list(range(1, 41))
    first = Image.open(io.BytesIO(_b64(rendered.data["pages"][0]["bytes"])))
    assert (first.format, first.size) == ("PNG", (1275, 1650))
    sync_api.cancel_operation(accepted["id"])  # an ended operation is deleted with its files
    with pytest.raises(NotFound):
        sync_api.wait_operation(accepted["id"])


def test_the_same_idempotency_key_gives_the_same_operation_counted_once(sync_api: FileApi) -> None:
    upload_id = sync_api.upload_file(png(), content_type="image/png")
    used = sync_api.usage().data["used_this_month"]
    first = sync_api.submit_operation("image_convert", [upload_id], idempotency_key="key-1", to="webp")
    again = sync_api.submit_operation("image_convert", [upload_id], idempotency_key="key-1", to="webp")
    assert again["id"] == first["id"]
    assert sync_api.usage().data["used_this_month"] == used + 1


def test_the_async_client_sends_large_files_the_same_way(local_api: LocalApi, sync_api: FileApi) -> None:
    image = png()

    async def run() -> bytes:
        policy = LargeFiles(threshold_bytes=THRESHOLD)
        async with AsyncFileApi(local_api.api_key, base_url=local_api.base_url, large_files=policy) as client:
            converted = await client.image_convert(image, to="jpeg", quality=80)
            return converted.data

    assert asyncio.run(run()) == sync_api.image_convert(image, to="jpeg", quality=80).data


def _b64(text: str) -> bytes:
    import base64

    return base64.b64decode(text)
