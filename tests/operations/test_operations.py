"""Operations through the API and the queue: accepted with 202, run from S3 to S3 by the executor, settled once."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pikepdf
import pytest
from fastapi.testclient import TestClient

from fileapi.errors import NotFound
from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from fileapi.metering.storage import AccountStore
from fileapi.models.files import OperationStatus
from fileapi.operations.executor import Executor
from tests.conftest import MakeKey
from tests.helpers import photo_png
from tests.hostile_files import xobject_fanout_pdf
from tests.operations.conftest import account_of, bearer
from tests.operations.helpers import (
    accepted,
    daily,
    fetched,
    pdf_with_pages,
    png_image,
    sha256,
    shown,
    upload_file,
    used,
)


def test_split_results_match_their_reported_sha256(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(7), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1-3,4,5-7")
    running = api.get(f"/v1/operations/{operation['id']}", headers=bearer(key))
    assert running.json()["status"] == "running" and running.headers["Retry-After"] == "2"
    assert executor_consumer.poll_once() == 1
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded" and "result" not in ended and "details" not in ended
    assert [(part["name"], part["field"]) for part in ended["results"]] == [
        ("pdfs-1.pdf", "pdfs[0]"),
        ("pdfs-2.pdf", "pdfs[1]"),
        ("pdfs-3.pdf", "pdfs[2]"),
    ]
    page_counts = []
    for part in ended["results"]:
        data = fetched(part["url"])
        assert sha256(data) == part["sha256"] and len(data) == part["size"]
        page_counts.append(len(pikepdf.open(io.BytesIO(data)).pages))
    assert page_counts == [3, 1, 3]


def test_merge_of_an_upload_with_itself_doubles_its_pages(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(4), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/merge", [upload, upload])
    executor_consumer.poll_once()
    result = shown(api, key, operation["id"])["result"]
    data = fetched(result["url"])
    assert sha256(data) == result["sha256"] and result["name"] == "result.pdf" and "field" not in result
    merged = pikepdf.open(io.BytesIO(data))
    assert len(merged.pages) == 8
    assert b"(3)" in merged.pages[6].Contents.read_bytes()


def test_an_upload_named_twice_is_read_from_s3_once(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    # GIVEN a merge naming one upload twice, and every GetObject of the service's S3 client counted
    upload = upload_file(api, key, pdf_with_pages(3), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/merge", [upload, upload])
    reads: list[str] = []

    def counted(model: Any, **_: Any) -> None:
        if model.name == "GetObject":
            reads.append(model.name)

    files.uploads.s3.meta.events.register("before-call.s3", counted)
    try:
        # WHEN it runs
        executor_consumer.poll_once()
    finally:
        files.uploads.s3.meta.events.unregister("before-call.s3", counted)
    # THEN the upload was read once, and given to the merge twice
    assert reads == ["GetObject"]
    merged = pikepdf.open(io.BytesIO(fetched(shown(api, key, operation["id"])["result"]["url"])))
    assert len(merged.pages) == 6


def test_compress_reports_its_sizes_beside_its_file(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    source = pdf_with_pages(30)
    upload = upload_file(api, key, source, content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/compress", [upload], stripMetadata="true")
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["result"]["field"] == "bytes" and ended["result"]["name"] == "bytes.pdf"
    assert ended["details"]["originalSize"] == len(source)
    assert ended["details"]["compressedSize"] == ended["result"]["size"] <= len(source)
    assert len(pikepdf.open(io.BytesIO(fetched(ended["result"]["url"]))).pages) == 30


def test_image_convert_to_webp(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    from PIL import Image

    upload = upload_file(api, key, png_image(640, 480), content_type="image/png")
    operation = accepted(api, key, "/v1/image/convert", [upload], to="webp", quality="70")
    executor_consumer.poll_once()
    result = shown(api, key, operation["id"])["result"]
    data = fetched(result["url"])
    assert (result["contentType"], result["name"]) == ("image/webp", "result.webp") and sha256(data) == result["sha256"]
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.size) == ("WEBP", (640, 480))


def test_image_convert_with_a_target_score_reports_what_it_chose(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, photo_png(), content_type="image/png")
    operation = accepted(api, key, "/v1/image/convert", [upload], to="jpeg", targetScore="80")
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    chosen = ended["details"]["headers"]  # what the synchronous answer says in its headers
    assert float(chosen["X-Quality-Score"]) >= 80 and 1 <= int(chosen["X-Encoder-Quality"]) <= 100


def test_any_route_runs_as_an_operation_its_json_files_listed(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/render-page", [upload], pages="1-2", dpi="72")
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "succeeded", ended
    assert [(part["field"], part["name"], part["contentType"]) for part in ended["results"]] == [
        ("pages[0].bytes", "pages-1-bytes.png", "image/png"),
        ("pages[1].bytes", "pages-2-bytes.png", "image/png"),
    ]
    assert ended["details"] == {
        "pages": [{"page": 1, "width": 200, "height": 200}, {"page": 2, "width": 200, "height": 200}]
    }
    assert fetched(ended["results"][0]["url"])[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_in_process_route_reads_its_upload_in_a_worker_and_answers_a_file(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    data = bytes(range(256)) * 1000
    upload = upload_file(api, key, data, content_type="application/octet-stream")
    operation = accepted(api, key, "/v1/data/base64-encode", [upload])
    executor_consumer.poll_once()
    result = shown(api, key, operation["id"])["result"]
    assert result["contentType"].startswith("text/plain") and result["name"] == "result.txt"
    assert fetched(result["url"]) == base64.b64encode(data)


def test_a_favicon_set_lists_every_image_and_keeps_its_manifest(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, png_image(64, 64), content_type="image/png")
    operation = accepted(api, key, "/v1/image/favicon-set", [upload])
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["results"][0]["field"] == "ico" and ended["results"][0]["name"] == "ico.ico"
    assert {part["contentType"] for part in ended["results"][1:]} == {"image/png"}
    assert set(ended["details"]) == {"manifest"}


def test_a_failed_operation_is_refunded_and_says_why(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    damaged = b"%PDF-1.7\nthis is not a pdf"  # its first bytes pass (tests/operations/test_acceptance.py)
    synchronous = api.post("/v1/pdf/split?ranges=1", content=damaged, headers=bearer(key)).json()
    upload = upload_file(api, key, damaged, content_type="application/pdf")
    before = used(api, key)
    days_before = daily(api, key)
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1")
    assert used(api, key) == before + 1
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "failed" and "results" not in ended
    assert ended["error"] == {"code": "invalid_input", "message": synchronous["message"]}
    assert used(api, key) == before
    assert daily(api, key) == days_before  # given back from the day it was admitted on


def test_a_pdf_whose_forms_fan_out_fails_too_large_and_is_refunded(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    # was unprocessable_input: PDFium aborted at the worker's memory limit
    upload = upload_file(api, key, xobject_fanout_pdf(8, 10), content_type="application/pdf")
    before = used(api, key)
    operation = accepted(api, key, "/v1/pdf/render-page", [upload])
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert (ended["status"], ended["error"]["code"]) == ("failed", "too_large"), ended
    assert "form XObject 13 0 is drawn 100,000,000 times" in ended["error"]["message"]
    assert used(api, key) == before


def test_a_redelivered_message_is_refunded_once(
    api: TestClient, key: str, files: FileServices, executor: Executor
) -> None:
    upload = upload_file(api, key, b"%PDF-1.7\nnot a pdf either", content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/rotate", [upload], degrees="90")
    charged = used(api, key)
    first = executor.run(operation["id"], receives=1)
    second = executor.run(operation["id"], receives=2)
    assert first is not None and second is not None
    assert (first.status, second.status) == (OperationStatus.FAILED, OperationStatus.FAILED)
    assert used(api, key) == charged - 1


def test_a_message_received_past_its_limit_fails_the_operation_instead_of_running_it(
    api: TestClient, key: str, files: FileServices, executor: Executor
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1,2")
    charged = used(api, key)
    ended = executor.run(operation["id"], receives=4)
    assert ended is not None and (ended.status, ended.error_code) == (OperationStatus.FAILED, "too_large")
    assert ended.error_message == (
        "the operation stopped before it ended 3 times (out of memory or time): send a smaller file, or split it first"
    )
    assert used(api, key) == charged - 1


def test_another_accounts_operation_is_404(api: TestClient, key: str, make_key: MakeKey, files: FileServices) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1")
    other = make_key()
    assert api.get(f"/v1/operations/{operation['id']}", headers=bearer(other)).status_code == 404
    assert api.delete(f"/v1/operations/{operation['id']}", headers=bearer(other)).status_code == 404
    assert shown(api, key, operation["id"])["status"] == "running"


def test_another_accounts_upload_is_404_at_acceptance_and_not_charged(
    api: TestClient, key: str, make_key: MakeKey, files: FileServices
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    other = make_key()
    before = used(api, other)
    answer = api.post(f"/v1/pdf/split?upload={upload}&ranges=1", headers=bearer(other))
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    assert used(api, other) == before


def test_unknown_operation_id_is_404(api: TestClient, key: str, files: FileServices) -> None:
    answer = api.get("/v1/operations/op_doesnotexist", headers=bearer(key))
    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"


def test_cancelling_a_running_operation_refunds_it_and_its_late_result_is_dropped(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(3), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1,2,3")
    charged = used(api, key)
    assert api.delete(f"/v1/operations/{operation['id']}", headers=bearer(key)).status_code == 204
    assert used(api, key) == charged - 1
    executor_consumer.poll_once()
    ended = shown(api, key, operation["id"])
    assert ended["status"] == "cancelled" and "results" not in ended
    assert ended["error"] == {"code": "cancelled", "message": "cancelled by DELETE"}
    listing = files.uploads.s3.list_objects_v2(Bucket=files.settings.bucket, Prefix="results/")
    assert not [entry for entry in listing.get("Contents", []) if operation["id"] in entry["Key"]]
    assert used(api, key) == charged - 1


def test_deleting_an_ended_operation_deletes_its_files_and_uploads(
    api: TestClient, key: str, store: AccountStore, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1,2")
    executor_consumer.poll_once()
    assert len(shown(api, key, operation["id"])["results"]) == 2
    assert api.delete(f"/v1/operations/{operation['id']}", headers=bearer(key)).status_code == 204
    assert api.get(f"/v1/operations/{operation['id']}", headers=bearer(key)).status_code == 404
    listing = files.uploads.s3.list_objects_v2(Bucket=files.settings.bucket)
    left = [entry["Key"] for entry in listing.get("Contents", [])]
    assert not [name for name in left if operation["id"] in name or upload in name]
    with pytest.raises(NotFound):
        files.uploads.owned(upload, account_of(store, key))


@pytest.mark.parametrize(
    ("route", "count", "query", "message"),
    [
        ("/v1/pdf/split", 1, "", "ranges: Field required"),
        ("/v1/pdf/split", 2, "ranges=1", "/v1/pdf/split takes one upload (?upload=upl_...), not 2"),
        ("/v1/image/convert", 1, "to=gif", "to: Input should be 'jpeg', 'png', 'webp', 'avif' or 'jxl' (got 'gif')"),
        ("/v1/image/compress", 1, "", "give quality (1-100) or targetScore (30-95)"),
        ("/v1/image/convert", 1, "to=png&targetScore=80", "targetScore applies to lossy outputs"),
        ("/v1/image/resize", 1, "width=9&quality=80&targetScore=80", "give quality or targetScore, not both"),
    ],
)
def test_acceptance_refuses_what_the_route_refuses_queues_nothing_and_charges_nothing(
    api: TestClient, key: str, files: FileServices, route: str, count: int, query: str, message: str
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    before = used(api, key)
    uploads = "&".join([f"upload={upload}"] * count)
    answer = api.post(f"{route}?{uploads}&{query}", headers=bearer(key))
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] in ("invalid_input", "unsupported_format")
    assert answer.json()["message"].startswith(message)
    assert used(api, key) == before
    assert files.settings.operations_queue_url is not None
    waiting = files.operations.sqs.receive_message(QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0)
    assert "Messages" not in waiting


def test_the_queue_message_names_the_operation(api: TestClient, key: str, files: FileServices) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1")
    assert files.settings.operations_queue_url is not None
    received = files.operations.sqs.receive_message(QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0)
    assert [json.loads(message["Body"]) for message in received["Messages"]] == [{"operation": operation["id"]}]


def test_prefer_respond_async_runs_an_inline_body_as_an_operation(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    synchronous = api.post("/v1/data/base64-encode", content=b"hello operations", headers=bearer(key))
    before = used(api, key)
    answer = api.post(
        "/v1/data/base64-encode",
        content=b"hello operations",
        headers={**bearer(key), "Prefer": "respond-async, wait=10"},
    )
    assert answer.status_code == 202 and answer.headers["Preference-Applied"] == "respond-async"
    assert used(api, key) == before + 1
    executor_consumer.poll_once()
    result = shown(api, key, answer.json()["id"])["result"]
    assert fetched(result["url"]) == synchronous.content == b"aGVsbG8gb3BlcmF0aW9ucw=="
    assert used(api, key) == before + 1


def test_prefer_respond_async_keeps_a_body_sent_as_curl_sends_it(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    curl_form = {**bearer(key), "Content-Type": "application/x-www-form-urlencoded", "Prefer": "respond-async"}
    answer = api.post("/v1/pdf/rotate?degrees=90", content=pdf_with_pages(3), headers=curl_form)
    assert answer.status_code == 202
    assert executor_consumer.poll_once() == 1
    ended = shown(api, key, answer.json()["id"])
    assert ended["status"] == "succeeded", ended
    with pikepdf.open(io.BytesIO(fetched(ended["result"]["url"]))) as rotated:
        assert [int(page.obj.get("/Rotate", 0)) for page in rotated.pages] == [90, 90, 90]


def test_prefer_respond_async_runs_a_json_route(
    api: TestClient, key: str, files: FileServices, executor_consumer: QueueConsumer
) -> None:
    request = {"a": "one\ntwo\n", "b": "one\nthree\n"}
    synchronous = api.post("/v1/text/diff", json=request, headers=bearer(key)).json()
    answer = api.post("/v1/text/diff", json=request, headers={**bearer(key), "Prefer": "respond-async"})
    assert answer.status_code == 202
    executor_consumer.poll_once()
    ended = shown(api, key, answer.json()["id"])
    assert ended["details"] == synchronous and ended["results"] == []


def test_a_request_without_upload_or_preference_stays_synchronous(api: TestClient, key: str) -> None:
    answer = api.post("/v1/data/base64-encode", content=b"hi", headers={**bearer(key), "Prefer": "return=minimal"})
    assert (answer.status_code, answer.content) == (200, b"aGk=")
    assert "Preference-Applied" not in answer.headers
