"""Operations on real processes: `fileapi serve` and `fileapi operations` (as `fileapi run` starts them) on moto's
S3, SQS and DynamoDB: an Idempotency-Key repeat, a failed operation refunded, an expired upload, another account's
operation refused, a webhook verified by `standardwebhooks` after two failed deliveries, and Prefer:
respond-async on a small inline request."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
import standardwebhooks

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from fileapi.storage.table import n
from tests.helpers import auth
from tests.operations.helpers import pdf_with_pages
from tests.server.conftest import FileApi
from tests.server.operations_client import ended, sha256_of, upload, used
from tests.webhook_receiver import Receiver

pytestmark = pytest.mark.server


@pytest.fixture()
def client(file_api: FileApi) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=file_api.url, timeout=60) as session:
        yield session


def _key(store: AccountStore) -> str:
    return create_key(store, email=f"{time.monotonic_ns()}@example.com", plan="business")


def test_an_idempotency_key_repeat_is_the_same_answer_charged_once_and_its_reuse_is_422(
    client: httpx.Client, file_api: FileApi
) -> None:
    key = _key(file_api.store)
    headers = {**auth(key), "Idempotency-Key": "7d3c4a52-2b1e-4c8e-9a57-0f1e2d3c4b5a"}
    document = pdf_with_pages(3)
    first = client.post("/v1/pdf/split?ranges=1,2-3", content=document, headers=headers)
    second = client.post("/v1/pdf/split?ranges=1,2-3", content=document, headers=headers)
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.content == first.content
    assert used(client, key) == 1
    reused = client.post("/v1/pdf/split?ranges=1", content=document, headers=headers)
    assert (reused.status_code, reused.json()["error"]) == (422, "idempotency_key_reused")
    assert used(client, key) == 1


def test_a_failed_operation_is_refunded(client: httpx.Client, file_api: FileApi) -> None:
    key = _key(file_api.store)
    upload_id = upload(client, key, b"%PDF-1.7 cut short", content_type="application/pdf")
    accepted = client.post(f"/v1/pdf/compress?upload={upload_id}", headers=auth(key))
    assert accepted.status_code == 202
    assert used(client, key) == 1
    operation = ended(client, key, accepted.json()["id"])
    assert operation["status"] == "failed" and operation["error"]["code"] == "invalid_input"
    assert used(client, key) == 0


def test_an_expired_upload_is_404_and_not_charged(client: httpx.Client, file_api: FileApi) -> None:
    key = _key(file_api.store)
    upload_id = upload(client, key, pdf_with_pages(1), content_type="application/pdf")
    table = file_api.services.table
    table.client.update_item(  # its 24 hours are over
        TableName=table.table_name,
        Key={"pk": {"S": f"UPLOAD#{upload_id}"}, "sk": {"S": "UPLOAD"}},
        UpdateExpression="SET expires_at = :past",
        ExpressionAttributeValues={":past": n(int(time.time()) - 1)},
    )
    answer = client.post(f"/v1/pdf/split?upload={upload_id}&ranges=1", headers=auth(key))
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    assert answer.json()["message"].startswith(f"no upload '{upload_id}' for this key's account (uploads expire 24")
    assert used(client, key) == 0


def test_another_accounts_operation_is_refused(client: httpx.Client, file_api: FileApi) -> None:
    owner, other = _key(file_api.store), _key(file_api.store)
    upload_id = upload(client, owner, pdf_with_pages(2), content_type="application/pdf")
    accepted = client.post(f"/v1/pdf/split?upload={upload_id}&ranges=1,2", headers=auth(owner))
    operation_id = accepted.json()["id"]
    for answer in (
        client.get(f"/v1/operations/{operation_id}", headers=auth(other)),
        client.delete(f"/v1/operations/{operation_id}", headers=auth(other)),
    ):
        assert (answer.status_code, answer.json()["error"]) == (404, "not_found")
    assert ended(client, owner, operation_id)["status"] == "succeeded"


def test_a_webhook_is_verified_by_standardwebhooks_after_two_failed_deliveries(
    file_api: FileApi, client: httpx.Client
) -> None:
    key = _key(file_api.store)
    receiver = Receiver(failures=2)
    try:
        secret = client.post("/v1/webhooks", json={"url": receiver.url}, headers=auth(key)).json()["secret"]
        upload_id = upload(client, key, pdf_with_pages(2), content_type="application/pdf")
        operation_id = client.post(f"/v1/pdf/split?upload={upload_id}&ranges=1,2", headers=auth(key)).json()["id"]
        operation = ended(client, key, operation_id)
        deadline = time.monotonic() + 60  # the schedule's 0 + 1 + 1 s, with the consumer's polling
        while len(receiver.received) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [status for _, _, status in receiver.received] == [500, 500, 200]
        headers, body, _ = receiver.received[-1]
        event = standardwebhooks.Webhook(secret).verify(body, headers)
        assert event["type"] == "operation.succeeded"
        assert event["data"]["id"] == operation_id
        assert [part["sha256"] for part in event["data"]["results"]] == [
            part["sha256"] for part in operation["results"]
        ]
        assert {seen[0]["webhook-id"] for seen in receiver.received} == {f"msg_{operation_id}"}
    finally:
        receiver.server.shutdown()


def test_prefer_respond_async_on_a_small_inline_request(client: httpx.Client, file_api: FileApi) -> None:
    key = _key(file_api.store)
    document = pdf_with_pages(4)
    synchronous = client.post("/v1/pdf/rotate?degrees=90", content=document, headers=auth(key))
    answer = client.post(
        "/v1/pdf/rotate?degrees=90", content=document, headers={**auth(key), "Prefer": "respond-async"}
    )
    assert answer.status_code == 202 and answer.headers["Preference-Applied"] == "respond-async"
    assert answer.headers["Location"] == f"/v1/operations/{answer.json()['id']}"
    operation = ended(client, key, answer.json()["id"])
    digest, size = sha256_of(operation["result"]["url"])
    assert (digest, size) == (operation["result"]["sha256"], operation["result"]["size"])
    assert size == len(synchronous.content)
    assert used(client, key) == 2
