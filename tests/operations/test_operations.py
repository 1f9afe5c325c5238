"""Operations driven through the queue: the executor runs them from S3 to S3 and settles each once."""

from __future__ import annotations

import io
import json

import httpx
import pikepdf
import pytest
from fastapi.testclient import TestClient

from fileapi.errors import InvalidInput, NotFound
from fileapi.local.queues import QueueConsumer
from fileapi.metering.meter import Meter
from fileapi.metering.storage import AccountStore
from fileapi.operations.records import Operation, Status
from fileapi.operations.services import FileServices
from tests.conftest import MakeKey
from tests.operations.conftest import account_of, bearer
from tests.operations.helpers import pdf_with_pages, png_image, sha256, upload_file


def _submit(files: FileServices, meter: Meter, key: str, route: str, uploads: list[str], **options: str) -> Operation:
    admission = meter.admit(f"Bearer {key}", counted=True, request_id=f"req-{uploads[0]}-{route}")
    return files.operations.submit(admission, route=route, options=options, upload_ids=uploads)


def _used(api: TestClient, key: str) -> int:
    return int(api.get("/v1/usage", headers=bearer(key)).json()["used_this_month"])


def _fetch(url: str) -> bytes:
    answer = httpx.get(url)
    assert answer.status_code == 200
    return answer.content


def test_split_results_match_their_reported_sha256(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(7), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1-3,4,5-7")
    running = api.get(f"/v1/operations/{operation.id}", headers=bearer(key))
    assert running.json()["status"] == "running" and running.headers["Retry-After"] == "2"
    assert executor_consumer.poll_once() == 1
    shown = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()
    assert shown["status"] == "succeeded"
    assert [part["name"] for part in shown["results"]] == ["part-1.pdf", "part-2.pdf", "part-3.pdf"]
    page_counts = []
    for part in shown["results"]:
        data = _fetch(part["url"])
        assert sha256(data) == part["sha256"] and len(data) == part["size"]
        page_counts.append(len(pikepdf.open(io.BytesIO(data)).pages))
    assert page_counts == [3, 1, 3]


def test_merge_of_an_upload_with_itself_doubles_its_pages(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(4), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/merge", [upload, upload])
    executor_consumer.poll_once()
    result = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()["result"]
    data = _fetch(result["url"])
    assert sha256(data) == result["sha256"]
    merged = pikepdf.open(io.BytesIO(data))
    assert len(merged.pages) == 8
    assert b"(3)" in merged.pages[6].Contents.read_bytes()


def test_compress_reports_its_sizes(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    source = pdf_with_pages(30)
    upload = upload_file(api, key, source, content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/compress", [upload], stripMetadata="true")
    executor_consumer.poll_once()
    shown = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()
    assert shown["details"]["originalSize"] == len(source)
    assert shown["details"]["compressedSize"] == shown["result"]["size"] <= len(source)
    assert len(pikepdf.open(io.BytesIO(_fetch(shown["result"]["url"]))).pages) == 30


def test_image_convert_to_webp(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    from PIL import Image

    upload = upload_file(api, key, png_image(640, 480), content_type="image/png")
    operation = _submit(files, meter, key, "/v1/image/convert", [upload], to="webp", quality="70")
    executor_consumer.poll_once()
    result = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()["result"]
    data = _fetch(result["url"])
    assert result["contentType"] == "image/webp" and sha256(data) == result["sha256"]
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.size) == ("WEBP", (640, 480))


def test_failed_operation_is_refunded_and_says_why(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, b"this is not a pdf", content_type="application/pdf")
    before = _used(api, key)
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1")
    assert _used(api, key) == before + 1
    executor_consumer.poll_once()
    shown = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()
    assert shown["status"] == "failed"
    assert shown["error"] == {"code": "invalid_input", "message": "the file is not a PDF (no %PDF- header)"}
    assert _used(api, key) == before
    assert files.operations.store.get_operation(operation.id).refunded  # type: ignore[union-attr]


def test_a_redelivered_message_is_counted_once(api: TestClient, key: str, files: FileServices, meter: Meter) -> None:
    upload = upload_file(api, key, b"not a pdf either", content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/rotate", [upload], degrees="90")
    used = _used(api, key)
    executor = files.executor(meter)
    first = executor.run(operation.id, receives=1)
    second = executor.run(operation.id, receives=2)
    assert first is not None and second is not None
    assert (first.status, second.status) == (Status.FAILED, Status.FAILED)
    assert _used(api, key) == used - 1  # refunded once, not twice


def test_the_last_receive_fails_the_operation_instead_of_running_it(
    api: TestClient, key: str, files: FileServices, meter: Meter
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1,2")
    used = _used(api, key)
    ended = files.executor(meter).run(operation.id, receives=4)
    assert ended is not None and ended.status is Status.FAILED
    assert ended.error_message == (
        "the operation stopped before it ended 3 times (out of memory or time): send a smaller file, or split it first"
    )
    assert _used(api, key) == used - 1


def test_another_accounts_operation_is_404(
    api: TestClient, key: str, make_key: MakeKey, files: FileServices, meter: Meter
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1")
    other = make_key()
    assert api.get(f"/v1/operations/{operation.id}", headers=bearer(other)).status_code == 404
    assert api.delete(f"/v1/operations/{operation.id}", headers=bearer(other)).status_code == 404
    assert api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).status_code == 200


def test_unknown_operation_id_is_404(api: TestClient, key: str, files: FileServices) -> None:
    answer = api.get("/v1/operations/op_doesnotexist", headers=bearer(key))
    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"


def test_cancelling_a_running_operation_refunds_it_and_its_late_result_is_dropped(
    api: TestClient, key: str, files: FileServices, meter: Meter, executor_consumer: QueueConsumer
) -> None:
    upload = upload_file(api, key, pdf_with_pages(3), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1,2,3")
    used = _used(api, key)
    assert api.delete(f"/v1/operations/{operation.id}", headers=bearer(key)).status_code == 204
    assert _used(api, key) == used - 1
    executor_consumer.poll_once()
    shown = api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()
    assert shown["status"] == "cancelled" and "results" not in shown
    listing = files.uploads.s3.list_objects_v2(Bucket=files.settings.bucket, Prefix="results/")
    assert not [entry for entry in listing.get("Contents", []) if operation.id in entry["Key"]]


def test_deleting_an_ended_operation_deletes_its_files_and_uploads(
    api: TestClient,
    key: str,
    store: AccountStore,
    files: FileServices,
    meter: Meter,
    executor_consumer: QueueConsumer,
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1,2")
    executor_consumer.poll_once()
    assert len(api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).json()["results"]) == 2
    assert api.delete(f"/v1/operations/{operation.id}", headers=bearer(key)).status_code == 204
    assert api.get(f"/v1/operations/{operation.id}", headers=bearer(key)).status_code == 404
    listing = files.uploads.s3.list_objects_v2(Bucket=files.settings.bucket)
    assert not [
        entry["Key"] for entry in listing.get("Contents", []) if operation.id in entry["Key"] or upload in entry["Key"]
    ]
    with pytest.raises(NotFound):
        files.uploads.owned(upload, account_of(store, key))


@pytest.mark.parametrize(
    ("route", "uploads", "options", "message"),
    [
        ("/v1/pdf/info", 1, {}, "/v1/pdf/info does not take uploads; these do: /v1/image/convert, /v1/pdf/compress"),
        ("/v1/pdf/split", 1, {}, "ranges: Field required"),
        ("/v1/pdf/split", 2, {"ranges": "1"}, "/v1/pdf/split takes exactly one upload (?upload=upl_...), not 2"),
        ("/v1/image/convert", 1, {"to": "gif"}, "to: Input should be 'jpeg', 'png', 'webp' or 'avif'"),
    ],
)
def test_submit_refuses_what_the_route_would_refuse(
    api: TestClient,
    key: str,
    files: FileServices,
    meter: Meter,
    route: str,
    uploads: int,
    options: dict[str, str],
    message: str,
) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    admission = meter.admit(f"Bearer {key}", counted=True, request_id=f"req-refused-{upload}")
    with pytest.raises(InvalidInput) as refused:
        files.operations.submit(admission, route=route, options=options, upload_ids=[upload] * uploads)
    assert refused.value.message.startswith(message)


def test_queue_message_names_the_operation(api: TestClient, key: str, files: FileServices, meter: Meter) -> None:
    upload = upload_file(api, key, pdf_with_pages(1), content_type="application/pdf")
    operation = _submit(files, meter, key, "/v1/pdf/split", [upload], ranges="1")
    assert files.settings.operations_queue_url is not None
    received = files.operations.sqs.receive_message(QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0)
    assert [json.loads(message["Body"]) for message in received["Messages"]] == [{"operation": operation.id}]
