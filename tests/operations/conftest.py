"""The executor of the operations tests (over the routes of the composed API's apps), behind a consumer of the test's
operations queue (the `files` fixture, tests/conftest.py: a bucket and queues of the test's own on moto's server)."""

from __future__ import annotations

import pytest

from fileapi.file_services import FileServices
from fileapi.local.queues import QueueConsumer
from fileapi.metering.keys import hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.storage import AccountStore
from fileapi.operations.executor import Executor
from fileapi.services import run_in_worker


@pytest.fixture()
def executor(files: FileServices, meter: Meter) -> Executor:
    """The executor of the catalogue's conversions, in this process's conversion workers."""
    return files.executor(meter, run_in_worker)


@pytest.fixture()
def executor_consumer(files: FileServices, executor: Executor) -> QueueConsumer:
    """The executor behind a local consumer of the test's operations queue (polled by the test)."""
    assert files.settings.operations_queue_url is not None
    return QueueConsumer(files.operations.sqs, files.settings.operations_queue_url, executor.handle)


def account_of(store: AccountStore, key: str) -> str:
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    return account.account_id


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
