"""An operation is refused before 202 wherever the synchronous request would be, without converting: the same status,
code and message, nothing counted, nothing stored, nothing queued (fileapi.web.operations, fileapi.web.input_checks,
fileapi.operations.service)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.file_services import FileServices
from tests.operations.conftest import bearer
from tests.operations.helpers import pdf_with_pages, png_image, upload_file, used

PDF = pdf_with_pages(1)
PNG = png_image(8, 8)
TEXT = b"hello there, this is text"

# (route with its options, body): each refused synchronously without any conversion.
REFUSED_INLINE = [
    ("/v1/pdf/info", b""),
    ("/v1/pdf/split?ranges=1", TEXT),
    ("/v1/pdf/rotate?degrees=90", PNG),
    ("/v1/pdf/compress", b""),
    ("/v1/image/convert?to=webp", b""),
    ("/v1/image/resize?width=10", TEXT),
    ("/v1/image/favicon-set", PDF),
    ("/v1/image/read-metadata", b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
    ("/v1/image/strip-metadata", b""),
    ("/v1/image/strip-metadata", PDF),
    ("/v1/qr/read", b""),
    ("/v1/barcode/read", TEXT),
    ("/v1/file/detect", b""),
    # options the route refuses, the body as good as it gets
    ("/v1/image/resize", PNG),
    ("/v1/image/resize?width=0", PNG),
    ("/v1/image/convert?to=webp&qualty=5", PNG),
    ("/v1/pdf/split", PDF),
    ("/v1/pdf/render-page?pages=3-1", PDF),
    ("/v1/pdf/split?ranges=2-x", PDF),
    ("/v1/pdf/extract-text?pages=0", PDF),
    ("/v1/pdf/watermark?text=draft&pages=one", PDF),
    ("/v1/render/svg-to-png?scale=2&width=10", b"<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>"),
]
# (route, JSON body) refused by the route's model.
REFUSED_JSON = [
    ("/v1/text/diff", b""),
    ("/v1/text/diff", b'{"a": "x"}'),
    ("/v1/qr/generate", b'{"text": "hi", "colour": "red"}'),
    ("/v1/color/convert", b"not json"),
]


def _answer(response: Any) -> tuple[int, dict[str, Any]]:
    return response.status_code, response.json()


def _nothing_kept_or_queued(files: FileServices) -> None:
    listing = files.uploads.s3.list_objects_v2(Bucket=files.settings.bucket)
    assert listing.get("KeyCount", 0) == 0, [entry["Key"] for entry in listing.get("Contents", [])]
    assert files.settings.operations_queue_url is not None
    waiting = files.operations.sqs.receive_message(QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0)
    assert "Messages" not in waiting


@pytest.mark.parametrize(("route", "body"), REFUSED_INLINE + REFUSED_JSON)
def test_an_inline_body_is_refused_before_202_as_the_synchronous_request_is(
    api: TestClient, key: str, files: FileServices, route: str, body: bytes
) -> None:
    headers = {**bearer(key), "Content-Type": "application/octet-stream"}
    synchronous = _answer(api.post(route, content=body, headers=headers))
    assert synchronous[0] in (400, 404, 413), synchronous
    before = used(api, key)
    asynchronous = api.post(route, content=body, headers={**headers, "Prefer": "respond-async"})
    assert _answer(asynchronous) == synchronous
    assert "Preference-Applied" not in asynchronous.headers
    assert used(api, key) == before
    _nothing_kept_or_queued(files)


@pytest.mark.parametrize(
    ("route", "stored", "content_type"),
    [
        ("/v1/pdf/split?ranges=1", TEXT, "application/pdf"),
        ("/v1/pdf/info", PNG, "image/png"),
        ("/v1/image/convert?to=png", PDF, "application/pdf"),
        ("/v1/image/strip-metadata", PDF, "image/jpeg"),
    ],
)
def test_an_upload_the_route_does_not_take_is_refused_before_202(
    api: TestClient, key: str, files: FileServices, route: str, stored: bytes, content_type: str
) -> None:
    synchronous = _answer(api.post(route, content=stored, headers=bearer(key)))
    assert synchronous[0] == 400, synchronous
    upload = upload_file(api, key, stored, content_type=content_type)
    before = used(api, key)
    separator = "&" if "?" in route else "?"
    asynchronous = api.post(f"{route}{separator}upload={upload}", headers=bearer(key))
    assert _answer(asynchronous) == synchronous
    assert used(api, key) == before
    assert files.settings.operations_queue_url is not None
    waiting = files.operations.sqs.receive_message(QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0)
    assert "Messages" not in waiting


def test_an_upload_that_does_not_exist_is_404_and_not_counted(api: TestClient, key: str, files: FileServices) -> None:
    before = used(api, key)
    answer = api.post("/v1/pdf/info?upload=upl_doesnotexist", headers=bearer(key))
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    assert "make one with POST /v1/uploads" in answer.json()["message"]
    assert used(api, key) == before
    _nothing_kept_or_queued(files)


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/v1/pdf/info", PDF),
        ("/v1/image/convert?to=webp", PNG),
        ("/v1/image/read-metadata", b"\x00\x01unknown bytes: only decoding tells"),
        ("/v1/file/hash", b""),
        ("/v1/text/word-count", b""),  # empty text is 200 synchronously
        ("/v1/data/url-encode", b""),
    ],
)
def test_an_input_the_first_bytes_cannot_refuse_is_accepted(
    api: TestClient, key: str, files: FileServices, route: str, body: bytes
) -> None:
    answer = api.post(route, content=body, headers={**bearer(key), "Prefer": "respond-async"})
    assert answer.status_code == 202, answer.text
