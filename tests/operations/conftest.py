"""Uploads, operations and webhooks on real parts: the session's moto server serves S3 and SQS beside DynamoDB
(one port, every service), with a bucket and queues of each test's own."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from fileapi.local.queues import QueueConsumer
from fileapi.metering.dynamo.table import DynamoTable
from fileapi.metering.keys import hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.storage import AccountStore
from fileapi.operations.aws import create_local_resources
from fileapi.operations.services import FileServices, build_file_services, use_file_services
from fileapi.settings import load_settings


@pytest.fixture()
def files(dynamodb_endpoint: str, table: DynamoTable) -> Iterator[FileServices]:
    """File services on the session's endpoint: a new bucket and queues, loopback webhooks allowed."""
    settings = dataclasses.replace(
        load_settings(), s3_endpoint=dynamodb_endpoint, sqs_endpoint=dynamodb_endpoint, webhooks_allow_loopback=True
    )
    resources = create_local_resources(settings, prefix=f"t{uuid.uuid4().hex[:8]}-")
    settings = dataclasses.replace(
        settings,
        bucket=resources.bucket,
        operations_queue_url=resources.operations_queue_url,
        webhooks_queue_url=resources.webhooks_queue_url,
        webhooks_dlq_url=resources.webhooks_dlq_url,
    )
    services = build_file_services(settings, table)
    use_file_services(services)
    yield services
    use_file_services(None)


@pytest.fixture()
def executor_consumer(files: FileServices, meter: Meter) -> QueueConsumer:
    """The executor behind a local consumer of the test's operations queue (polled by the test)."""
    assert files.settings.operations_queue_url is not None
    return QueueConsumer(files.operations.sqs, files.settings.operations_queue_url, files.executor(meter).handle)


def account_of(store: AccountStore, key: str) -> str:
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    return account.account_id


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("work"))


def api_client(api: TestClient) -> TestClient:
    return api


os.environ.setdefault("FILEAPI_WEBHOOKS_ALLOW_LOOPBACK", "1")
