"""Unit tests run single-threaded, without a server: the metering stores come in both implementations
(in memory, and DynamoDB through moto's in-process mock), and the same tests run against each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.storage import AccountStore, Stores
from fileapi.storage.table import DynamoTable, create_client, create_table
from tests.memory_stores import memory_stores


@pytest.fixture()
def dynamo_table() -> Iterator[DynamoTable]:
    """A fresh table in moto's in-process mock."""
    with mock_aws():
        table = DynamoTable("t", create_client(region="us-east-1"), sleep=lambda _: None)
        create_table(table.client, table.table_name)
        yield table


@pytest.fixture(params=["memory", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Stores:
    """The two stores, in memory or over DynamoDB (overrides the session's moto-server stores here)."""
    if request.param == "memory":
        return memory_stores()
    return dynamo_stores(request.getfixturevalue("dynamo_table"))


@pytest.fixture()
def store(stores: Stores) -> AccountStore:
    return stores.accounts
