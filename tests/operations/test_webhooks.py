"""Webhooks: registration, URL checks after DNS, Standard Webhooks signatures and retried deliveries."""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Iterator

import pytest
import standardwebhooks
from fastapi.testclient import TestClient

from fileapi.errors import InvalidInput
from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from fileapi.webhooks.addresses import check_url, is_public
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


@pytest.mark.parametrize(
    "address",
    [
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "127.0.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "2002:a9fe:a9fe::1",
        "64:ff9b::a9fe:a9fe",
    ],
)
def test_addresses_that_are_not_public_are_refused(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/x", "the webhook URL must be an absolute https:// URL, not 'ftp://example.com/x'"),
        ("https://user:pw@example.com/", "the webhook URL must not carry a user name or password"),
        ("https://127.0.0.1/hooks", "the webhook URL's host '127.0.0.1' resolves to 127.0.0.1, which is not a public"),
        ("https://[::ffff:10.1.2.3]/", "the webhook URL's host '::ffff:10.1.2.3' resolves to ::ffff:"),
        ("https://localhost/", "the webhook URL's host 'localhost' resolves to"),
        ("http://127.0.0.1:9/", "the webhook URL must use https://"),
    ],
)
def test_urls_refused_when_deployed(url: str, message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_url(url)
    assert refused.value.message.startswith(message)


def test_loopback_is_allowed_locally_only() -> None:
    target = check_url("http://127.0.0.1:8080/hooks?x=1", allow_loopback=True)
    assert (target.scheme, target.address, target.port, target.path) == ("http", "127.0.0.1", 8080, "/hooks?x=1")
    with pytest.raises(InvalidInput):
        check_url("http://10.0.0.1/hooks", allow_loopback=True)


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
