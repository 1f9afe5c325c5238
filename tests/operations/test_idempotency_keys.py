"""Idempotency-Key on the metered routes' POSTs, through the API: the same request gets the same answer and is
charged once, another request with the key is 422, a failure releases the key."""

from __future__ import annotations

import hashlib

from fastapi.testclient import TestClient

from fileapi.file_services import FileServices
from tests.conftest import MakeKey
from tests.operations.conftest import bearer
from tests.operations.helpers import pdf_with_pages, upload_file, used


def _with_key(key: str, idempotency_key: str, **headers: str) -> dict[str, str]:
    return {**bearer(key), "Idempotency-Key": idempotency_key, **headers}


def test_a_repeat_gets_the_same_answer_and_is_charged_once(api: TestClient, key: str, files: FileServices) -> None:
    before = used(api, key)
    first = api.post("/v1/data/base64-encode", content=b"once", headers=_with_key(key, "k-repeat"))
    second = api.post("/v1/data/base64-encode", content=b"once", headers=_with_key(key, "k-repeat"))
    assert (first.status_code, second.status_code) == (200, 200)
    assert first.content == second.content == b"b25jZQ=="
    assert second.headers["content-type"] == first.headers["content-type"]
    assert used(api, key) == before + 1
    assert int(second.headers["X-Quota-Remaining"]) == int(first.headers["X-Quota-Remaining"])


def test_the_key_with_another_request_is_422(api: TestClient, key: str, files: FileServices) -> None:
    assert api.post("/v1/data/base64-encode", content=b"a", headers=_with_key(key, "k-reuse")).status_code == 200
    before = used(api, key)
    reused = api.post("/v1/data/base64-encode", content=b"b", headers=_with_key(key, "k-reuse"))
    assert reused.status_code == 422
    assert reused.json()["error"] == "idempotency_key_reused"
    other_path = api.post("/v1/data/url-encode", content=b"a", headers=_with_key(key, "k-reuse"))
    assert other_path.status_code == 422
    assert used(api, key) == before


def test_a_failed_request_releases_its_key(api: TestClient, key: str, files: FileServices) -> None:
    failed = api.post("/v1/pdf/info", content=b"not a pdf", headers=_with_key(key, "k-failed"))
    assert failed.status_code == 400
    after = api.post("/v1/pdf/info", content=pdf_with_pages(2), headers=_with_key(key, "k-failed"))
    assert after.status_code == 200 and after.json()["pageCount"] == 2


def test_an_answer_over_the_item_limit_is_replayed_whole(api: TestClient, key: str, files: FileServices) -> None:
    body = bytes(range(256)) * 1500  # 384,000 bytes in, 512,000 out: kept in the bucket
    first = api.post("/v1/data/base64-encode", content=body, headers=_with_key(key, "k-large"))
    second = api.post("/v1/data/base64-encode", content=body, headers=_with_key(key, "k-large"))
    assert hashlib.sha256(second.content).digest() == hashlib.sha256(first.content).digest()
    assert len(second.content) == 512_000


def test_a_repeated_operation_is_the_same_operation_charged_once(
    api: TestClient, key: str, files: FileServices
) -> None:
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    before = used(api, key)
    route = f"/v1/pdf/split?upload={upload}&ranges=1,2"
    first = api.post(route, headers=_with_key(key, "k-operation"))
    second = api.post(route, headers=_with_key(key, "k-operation"))
    assert (first.status_code, second.status_code) == (202, 202)
    assert second.json()["id"] == first.json()["id"]
    assert second.headers["Location"] == first.headers["Location"]
    assert used(api, key) == before + 1
    assert files.settings.operations_queue_url is not None
    queued = files.operations.sqs.receive_message(
        QueueUrl=files.settings.operations_queue_url, WaitTimeSeconds=0, MaxNumberOfMessages=10
    )
    assert len(queued["Messages"]) == 1


def test_a_self_service_post_is_idempotent_too(api: TestClient, key: str, files: FileServices) -> None:
    request = {"url": "http://127.0.0.1:9/hooks"}
    first = api.post("/v1/webhooks", json=request, headers=_with_key(key, "k-hook"))
    second = api.post("/v1/webhooks", json=request, headers=_with_key(key, "k-hook"))
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json() == first.json()
    assert [hook["id"] for hook in api.get("/v1/webhooks", headers=bearer(key)).json()["webhooks"]] == [
        first.json()["id"]
    ]


def test_keys_belong_to_the_api_key_that_sent_them(
    api: TestClient, key: str, make_key: MakeKey, files: FileServices
) -> None:
    other = make_key()
    assert api.post("/v1/data/base64-encode", content=b"a", headers=_with_key(key, "k-shared")).status_code == 200
    before = used(api, other)
    theirs = api.post("/v1/data/base64-encode", content=b"b", headers=_with_key(other, "k-shared"))
    assert (theirs.status_code, theirs.content) == (200, b"Yg==")
    assert used(api, other) == before + 1


def test_a_repeat_still_needs_a_valid_key(api: TestClient, key: str, files: FileServices) -> None:
    rotated = api.post("/v1/keys/rotate", headers=_with_key(key, "k-rotate"))
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    repeated = api.post("/v1/keys/rotate", headers=_with_key(key, "k-rotate"))
    assert repeated.status_code == 401
    new_key = rotated.json()["api_key"]
    assert api.get("/v1/usage", headers=bearer(new_key)).status_code == 200


def test_a_malformed_key_is_400(api: TestClient, key: str, files: FileServices) -> None:
    answer = api.post("/v1/data/base64-encode", content=b"a", headers=_with_key(key, "x" * 256))
    assert answer.status_code == 400
    assert answer.json()["message"] == "Idempotency-Key must be 1-255 printable ASCII characters (a UUID is usual)"
