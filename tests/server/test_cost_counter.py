"""bench/cost.py counts a DynamoDB client's calls on the local endpoint (moto's server) and models
their units from the items before and after each write."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError, ConnectionClosedError

from bench.cost import CallCounter, measure_request_cost
from bench.sizing import memory_sizes
from fileapi.local.dynamo import local_client
from fileapi.metering.storage import Stores
from fileapi.services import use_stores
from fileapi.storage.table import create_client, create_table
from tests.dynamo_proxy import DynamoProxy, Faults

pytestmark = pytest.mark.server


@pytest.fixture()
def counted(dynamodb_endpoint: str) -> Iterator[tuple[CallCounter, str]]:
    """A counter on a client of a fresh table, and the table's name."""
    table = f"cost-{uuid.uuid4().hex[:8]}"
    client = local_client(dynamodb_endpoint)
    create_table(client, table)
    yield CallCounter(client, local_client(dynamodb_endpoint)), table


def key(name: str) -> dict[str, Any]:
    return {"pk": {"S": name}, "sk": {"S": "X"}}


def test_writes_cost_the_larger_image_and_refused_conditions_still_cost(counted: tuple[CallCounter, str]) -> None:
    counter, table = counted
    client = counter.client
    client.put_item(TableName=table, Item={**key("before"), "v": {"S": "x" * 100}})  # not counted: outside the block
    with counter.counting() as calls:
        client.put_item(TableName=table, Item={**key("a"), "v": {"S": "x" * 1500}})
        client.update_item(TableName=table, Key=key("a"), UpdateExpression="SET v = :v",
                           ExpressionAttributeValues={":v": {"S": "y"}})  # fmt: skip
        with pytest.raises(ClientError):
            client.update_item(TableName=table, Key=key("before"), UpdateExpression="SET w = :w",
                               ConditionExpression="attribute_not_exists(pk)",
                               ExpressionAttributeValues={":w": {"S": "z" * 3000}})  # fmt: skip
        client.get_item(TableName=table, Key=key("a"), ConsistentRead=True)
        client.get_item(TableName=table, Key=key("missing"))
        client.transact_write_items(
            TransactItems=[{"Put": {"TableName": table, "Item": {**key(f"t{n}"), "v": {"S": "x"}}}} for n in range(2)]
        )
    assert [(call.operation, call.read_units, call.write_units) for call in calls] == [
        ("PutItem", 0, 2),  # 1.5 KB after
        ("UpdateItem", 0, 2),  # billed on the larger image, before the update
        ("UpdateItem", 0, 1),  # refused: the existing item's size
        ("GetItem", 1, 0),  # strongly consistent, small
        ("GetItem", 0.5, 0),  # eventually consistent, no item: still half a unit
        ("TransactWriteItems", 0, 4),  # 2 items, twice the units
    ]
    client.get_item(TableName=table, Key=key("a"))
    assert len(calls) == 6  # the block is closed


def test_a_write_whose_reply_was_lost_is_still_counted(dynamodb_endpoint: str) -> None:
    # GIVEN a proxy that applies every write, then drops the connection before the reply
    table = f"cost-{uuid.uuid4().hex[:8]}"
    create_table(local_client(dynamodb_endpoint), table)
    with DynamoProxy(dynamodb_endpoint, Faults(drop=1.0)) as proxy:
        client = create_client(region="us-east-1", endpoint_url=proxy.url)
        counter = CallCounter(client, local_client(dynamodb_endpoint))
        # WHEN a write's reply is lost
        with counter.counting() as calls, pytest.raises(ConnectionClosedError):
            client.put_item(TableName=table, Item={**key("lost"), "v": {"S": "x" * 1500}})
        assert proxy.faults_injected()["drop"] == 1
    # THEN it is billed as the table billed it: the item was written
    assert [(call.operation, call.read_units, call.write_units) for call in calls] == [("PutItem", 0, 2)]


def test_a_real_metered_request_is_counted(dynamodb_endpoint: str, stores: Stores) -> None:
    table = f"cost-{uuid.uuid4().hex[:8]}"
    memory = memory_sizes()["DataFunction"]
    try:
        served = measure_request_cost(dynamodb_endpoint, "DataFunction", memory, p50_ms=10.0, table=table)
        refused = measure_request_cost(dynamodb_endpoint, "DataFunction", memory, bad_key=True, table=table)
    finally:
        use_stores(stores)  # the session's API fixture shares this process's stores
    # Whatever the metering does, a success writes its count, and every call is priced.
    assert served.calls and served.write_units >= 1
    assert all(call.read_units or call.write_units for call in served.calls)
    assert served.memory_mb == memory and served.p50_ms == 10.0
    assert served.total_dollars > served.api_dollars + served.lambda_dollars
    # A made-up key writes nothing; its duration is measured here.
    assert refused.write_units == 0 and refused.label == "made-up key (401)"
    assert 0 < refused.p50_ms < 1000
