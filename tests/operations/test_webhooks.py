"""Webhooks: registration, URL checks after DNS, Standard Webhooks signatures and retried deliveries."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import standardwebhooks
from fastapi.testclient import TestClient

from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from fileapi.net.addresses import EgressPolicy, check_url
from fileapi.webhooks.delivery import post
from fileapi.webhooks.signing import new_secret, signed_headers
from tests.operations.conftest import bearer
from tests.operations.helpers import accepted, pdf_with_pages, upload_file
from tests.webhook_receiver import Receiver


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    endpoint = Receiver(failures=2)
    yield endpoint
    endpoint.server.shutdown()


def test_signature_verifies_with_the_standardwebhooks_library() -> None:
    secret = new_secret()
    body = b'{"type":"operation.succeeded"}'
    headers = signed_headers(secret, message_id="msg_1", timestamp=int(time.time()), body=body)
    assert standardwebhooks.Webhook(secret).verify(body, headers) == {"type": "operation.succeeded"}


def test_a_changed_body_fails_verification() -> None:
    secret = new_secret()
    headers = signed_headers(secret, message_id="msg_1", timestamp=int(time.time()), body=b"{}")
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook(secret).verify(b'{"a":1}', headers)


def test_register_list_and_delete_webhooks(api: TestClient, key: str, files: FileServices) -> None:
    created = api.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/a"}, headers=bearer(key))
    assert created.status_code == 201
    hook = created.json()
    assert hook["secret"].startswith("whsec_") and hook["id"].startswith("wh_")
    listed = api.get("/v1/webhooks", headers=bearer(key)).json()["webhooks"]
    assert listed == [{"id": hook["id"], "url": "http://127.0.0.1:9/a", "createdAt": hook["createdAt"]}]
    assert api.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(key)).status_code == 204
    assert api.get("/v1/webhooks", headers=bearer(key)).json()["webhooks"] == []
    assert api.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(key)).status_code == 404


def test_register_refuses_a_private_url(api: TestClient, key: str, files: FileServices) -> None:
    answer = api.post("/v1/webhooks", json={"url": "http://10.0.0.1/a"}, headers=bearer(key))
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_input"
    assert answer.json()["message"].startswith("url: the URL's host '10.0.0.1' is not a public address")


def test_register_refuses_control_characters_naming_the_url(api: TestClient, key: str, files: FileServices) -> None:
    url = "http://127.0.0.1:9/a\r\nX-Injected: 1"
    answer = api.post("/v1/webhooks", json={"url": url}, headers=bearer(key))
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_input"
    assert answer.json()["message"] == "url: the URL holds a control character (U+000D at position 20): remove it"
    assert api.get("/v1/webhooks", headers=bearer(key)).json()["webhooks"] == []


def test_operation_end_is_delivered_signed_after_two_failed_attempts(
    api: TestClient,
    key: str,
    files: FileServices,
    executor_consumer: QueueConsumer,
    receiver: Receiver,
) -> None:
    secret = api.post("/v1/webhooks", json={"url": receiver.url}, headers=bearer(key)).json()["secret"]
    upload = upload_file(api, key, pdf_with_pages(2), content_type="application/pdf")
    operation = accepted(api, key, "/v1/pdf/split", [upload], ranges="1,2")
    executor_consumer.poll_once()
    assert files.settings.webhooks_queue_url is not None
    deliveries = QueueConsumer(
        files.webhooks.sqs, files.settings.webhooks_queue_url, files.deliverer(schedule=(0, 1, 1)).handle
    )
    while len(receiver.received) < 3:
        deliveries.poll_once()
    assert [status for _, _, status in receiver.received] == [500, 500, 200]
    headers, body, _ = receiver.received[-1]
    event = standardwebhooks.Webhook(secret).verify(body, headers)
    assert event["type"] == "operation.succeeded"
    assert event["data"]["id"] == operation["id"] and len(event["data"]["results"]) == 2
    assert {received[0]["webhook-id"] for received in receiver.received} == {f"msg_{operation['id']}"}


def test_a_delivery_failing_every_attempt_is_dead_lettered(api: TestClient, key: str, files: FileServices) -> None:
    endpoint = Receiver(failures=99)
    try:
        hook = api.post("/v1/webhooks", json={"url": endpoint.url}, headers=bearer(key)).json()
        deliverer = files.deliverer(schedule=(0, 0))
        owner = _owner(files, hook["id"])
        files.webhooks.enqueue(owner, event_type="operation.failed", data={"id": "op_x"}, message_id="msg_dead")
        assert files.settings.webhooks_queue_url is not None and files.settings.webhooks_dlq_url is not None
        consumer = QueueConsumer(files.webhooks.sqs, files.settings.webhooks_queue_url, deliverer.handle)
        while len(endpoint.received) < 2:
            consumer.poll_once()
        dead = files.webhooks.sqs.receive_message(QueueUrl=files.settings.webhooks_dlq_url, WaitTimeSeconds=0)
        assert [json.loads(message["Body"])["message_id"] for message in dead["Messages"]] == ["msg_dead"]
    finally:
        endpoint.server.shutdown()


def _owner(files: FileServices, webhook_id: str) -> str:
    response = files.table.client.scan(TableName=files.table.table_name)
    for item in response["Items"]:
        if item["sk"]["S"] == f"WEBHOOK#{webhook_id}":
            return item["pk"]["S"].removeprefix("WEBHOOKS#")
    raise AssertionError("no such webhook")


def test_a_delivery_connects_to_the_checked_address_with_the_name_as_host(receiver: Receiver) -> None:
    port = receiver.server.server_address[1]
    answers = iter(["127.0.0.1", "10.9.9.9"])  # a second lookup would be refused: there is none
    policy = EgressPolicy(local=True, resolver=lambda host, port: [next(answers)])
    target = check_url(f"http://hooks.test:{port}/hooks", field="url", policy=policy)
    assert post(target, b"{}", {"webhook-id": "msg_1"}, policy, timeout=5) == 500  # the receiver's first answer
    headers = receiver.received[0][0]
    assert (headers["host"], headers["content-type"], headers["webhook-id"]) == (
        f"hooks.test:{port}",
        "application/json",
        "msg_1",
    )
