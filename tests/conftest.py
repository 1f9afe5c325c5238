"""Shared fixtures: a real DynamoDB-compatible endpoint (moto's server, single-threaded) for the
whole session, a Meter over it, keys, and the composed local API as a test client."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from fileapi.file_services import FileServices, build_file_services
from fileapi.local import dynamo
from fileapi.local.server import create_local_app
from fileapi.metering.admin import create_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.meter import Meter
from fileapi.metering.storage import AccountStore, Stores
from fileapi.operations.aws import create_local_resources
from fileapi.services import use_file_services, use_stores
from fileapi.settings import load_settings
from fileapi.storage.table import DynamoTable
from fileapi.telemetry import logger
from tests.helpers import CORPUS

for _name, _value in dynamo.LOCAL_CREDENTIALS.items():
    os.environ.setdefault(_name, _value)
# E-mail written by the API under test goes to a temporary outbox, not the developer's .local/outbox: one per
# xdist worker (a test that makes the outbox unwritable must not fail another worker's mail).
if "FILEAPI_OUTBOX" not in os.environ or "PYTEST_XDIST_WORKER" in os.environ:
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    os.environ["FILEAPI_OUTBOX"] = tempfile.mkdtemp(prefix=f"fileapi-outbox-{_worker}")
# The Stripe endpoint secret the webhook tests sign with.
os.environ.setdefault("FILEAPI_STRIPE_WEBHOOK_SECRET", "whsec_test_secret_for_the_suite")

MakeKey = Callable[..., str]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ../shared/corpus (a clone of the project alone) every test marked `corpus` skips, saying why."""
    if CORPUS.is_dir():
        return
    absent = pytest.mark.skip(reason=f"the corpus folder {CORPUS} is absent")
    for item in items:
        if item.get_closest_marker("corpus") is not None:
            item.add_marker(absent)


@pytest.fixture(scope="session")
def dynamodb_endpoint() -> Iterator[str]:
    """URL of a moto server started for this test session (one per xdist worker)."""
    process, url = dynamo.start_process()
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:  # freeing a session's objects took longer (a loaded machine): not under test
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def table(dynamodb_endpoint: str) -> DynamoTable:
    """A fresh table on the session's endpoint."""
    return dynamo.local_table(f"fileapi-test-{uuid.uuid4().hex[:8]}", dynamodb_endpoint)


@pytest.fixture(scope="session")
def stores(table: DynamoTable) -> Stores:
    return dynamo_stores(table)


@pytest.fixture(scope="session")
def store(stores: Stores) -> AccountStore:
    """The account store of the session's table (keys are made with it)."""
    return stores.accounts


@pytest.fixture(scope="session")
def meter(stores: Stores) -> Meter:
    return Meter(stores.admission)


@pytest.fixture()
def make_key(store: AccountStore) -> MakeKey:
    """Create an account with a fresh e-mail and return its key."""

    def make(plan: str = "business", quota: int | None = None, status: str = "active") -> str:
        return create_key(store, email=f"{uuid.uuid4().hex}@example.com", plan=plan, quota=quota, status=status)

    return make


@pytest.fixture()
def key(make_key: MakeKey) -> str:
    return make_key()


@pytest.fixture(scope="session")
def api(stores: Stores) -> Iterator[TestClient]:
    """The whole API as the local server composes it from template.yaml, over the session's table."""
    use_stores(stores)
    with TestClient(create_local_app(), raise_server_exceptions=False) as client:
        yield client
    use_stores(None)


@pytest.fixture()
def files(dynamodb_endpoint: str, table: DynamoTable) -> Iterator[FileServices]:
    """File services on the session's endpoint: a new bucket and queues, loopback URLs allowed."""
    settings = dataclasses.replace(
        load_settings(), s3_endpoint=dynamodb_endpoint, sqs_endpoint=dynamodb_endpoint, urls_allow_loopback=True
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
def log_output() -> Iterator[io.StringIO]:
    """What the service's JSON logger writes during the test."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    yield stream
    logger.handlers.remove(handler)
