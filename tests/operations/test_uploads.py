"""POST /v1/uploads: a presigned POST bounded by the plan, stored by a real multipart POST to the bucket."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
from fastapi.testclient import TestClient

from fileapi.errors import InvalidInput, NotFound, TooLarge
from fileapi.file_services import FileServices
from fileapi.metering.plans import MIB
from fileapi.metering.storage import AccountStore
from fileapi.operations.uploads import DAY_SECONDS, UploadService
from tests.conftest import MakeKey
from tests.operations.conftest import account_of, bearer
from tests.operations.helpers import upload_file


def _policy(fields: dict[str, str]) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(base64.b64decode(fields["policy"]))
    return decoded


def test_upload_answers_a_presigned_post_bounded_by_the_business_plan(
    api: TestClient, key: str, files: FileServices
) -> None:
    answer = api.post(
        "/v1/uploads", json={"filename": "scan.pdf", "contentType": "application/pdf", "size": 5}, headers=bearer(key)
    )
    assert answer.status_code == 201
    body = answer.json()
    assert body["id"].startswith("upl_") and len(body["id"]) == 30
    assert body["maxBytes"] == 2048 * MIB
    conditions = _policy(body["fields"])["conditions"]
    assert ["content-length-range", 1, 2048 * MIB] in conditions
    assert {"Content-Type": "application/pdf"} in conditions
    assert body["fields"]["key"].endswith("/" + body["id"])
    assert "X-Quota-Remaining" in answer.headers


def test_upload_limit_follows_the_plan(api: TestClient, make_key: MakeKey, files: FileServices) -> None:
    starter = make_key(plan="starter")
    answer = api.post(
        "/v1/uploads",
        json={"filename": "big.pdf", "contentType": "application/pdf", "size": 100 * MIB + 1},
        headers=bearer(starter),
    )
    assert answer.status_code == 413
    assert answer.json()["error"] == "too_large"
    assert "104,857,600 bytes" in answer.json()["message"]


def test_upload_is_not_counted(api: TestClient, key: str, files: FileServices) -> None:
    before = api.get("/v1/usage", headers=bearer(key)).json()["used_this_month"]
    for _ in range(3):
        api.post("/v1/uploads", json={"filename": "a", "contentType": "image/png", "size": 9}, headers=bearer(key))
    assert api.get("/v1/usage", headers=bearer(key)).json()["used_this_month"] == before


def test_upload_needs_a_key(api: TestClient, files: FileServices) -> None:
    answer = api.post("/v1/uploads", json={"filename": "a", "contentType": "image/png", "size": 9})
    assert answer.status_code == 401


def test_upload_refuses_a_bad_media_type(api: TestClient, key: str, files: FileServices) -> None:
    answer = api.post("/v1/uploads", json={"filename": "a", "contentType": "png", "size": 9}, headers=bearer(key))
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_input"


def test_posted_file_is_stored_byte_for_byte(
    api: TestClient, key: str, files: FileServices, store: AccountStore
) -> None:
    data = bytes(range(256)) * 4000
    upload_id = upload_file(api, key, data, content_type="application/octet-stream")
    upload = files.uploads.owned(upload_id, account_of(store, key))
    assert files.uploads.stored_size(upload) == len(data)
    stored = files.uploads.s3.get_object(Bucket=files.settings.bucket, Key=upload.key)["Body"].read()
    assert stored == data


def test_upload_without_its_file_is_refused_when_used(
    api: TestClient, key: str, files: FileServices, store: AccountStore
) -> None:
    answer = api.post("/v1/uploads", json={"filename": "a", "contentType": "image/png", "size": 9}, headers=bearer(key))
    upload = files.uploads.owned(answer.json()["id"], account_of(store, key))
    try:
        files.uploads.stored_size(upload)
    except InvalidInput as error:
        assert error.message == f"upload {upload.id} has no file yet: POST the file to its url with its fields first"
    else:
        raise AssertionError("an upload without a file was accepted")


def test_expired_upload_is_not_found(api: TestClient, key: str, files: FileServices, store: AccountStore) -> None:
    upload_id = upload_file(api, key, b"%PDF-1.7 tiny", content_type="application/pdf")
    account = account_of(store, key)
    later = UploadService(
        files.uploads.store,
        files.uploads.s3,
        bucket=files.settings.bucket,
        url_seconds=60,
        retention_days=1,
        clock=lambda: files.uploads.clock() + DAY_SECONDS + 1,
    )
    later.store = type(files.uploads.store)(files.uploads.store.table, clock=later.clock)
    try:
        later.owned(upload_id, account)
    except NotFound as error:
        assert error.message.startswith(f"no upload '{upload_id}' for this key's account (uploads expire 24 hours")
    else:
        raise AssertionError("an expired upload was found")


def test_another_accounts_upload_is_not_found(
    api: TestClient, key: str, make_key: MakeKey, files: FileServices, store: AccountStore
) -> None:
    upload_id = upload_file(api, key, b"%PDF-1.7 tiny", content_type="application/pdf")
    other = account_of(store, make_key())
    try:
        files.uploads.owned(upload_id, other)
    except NotFound:
        pass
    else:
        raise AssertionError("another account's upload was found")


def test_stored_file_over_the_bound_is_too_large(
    api: TestClient, key: str, files: FileServices, store: AccountStore
) -> None:
    upload_id = upload_file(api, key, b"x" * 2000, content_type="application/octet-stream")
    upload = files.uploads.owned(upload_id, account_of(store, key))
    bounded = type(upload)(**{**upload.__dict__, "max_bytes": 1000})
    try:
        files.uploads.stored_size(bounded)
    except TooLarge as error:
        assert error.message == f"upload {upload.id} holds 2,000 bytes; at most 1,000"
    else:
        raise AssertionError("a file over its bound was accepted")


def test_presigned_post_url_is_the_bucket(api: TestClient, key: str, files: FileServices) -> None:
    created = api.post(
        "/v1/uploads", json={"filename": "a", "contentType": "text/plain", "size": 2}, headers=bearer(key)
    ).json()
    assert httpx.URL(created["url"]).path == f"/{files.settings.bucket}"
