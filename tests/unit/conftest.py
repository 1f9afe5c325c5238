"""Unit tests run single-threaded against moto's in-process DynamoDB mock (no server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from fileapi.metering.dynamodb import DynamoStore, create_client, create_table


@pytest.fixture()
def store() -> Iterator[DynamoStore]:
    """A fresh table in moto's in-process mock (overrides the session's moto-server store here)."""
    with mock_aws():
        client = create_client(region="us-east-1")
        create_table(client, "t")
        yield DynamoStore("t", client, sleep=lambda _: None)
