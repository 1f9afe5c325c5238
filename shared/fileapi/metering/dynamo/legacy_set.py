"""The set of earlier-format keys as one DynamoDB item (see `fileapi.metering.legacy_keys`).

The item is `KEY#LEGACY` / `SET`: a KEY# partition, so the converter functions' policy (GetItem on KEY#*
partitions, attributes `KEY_ITEM_READ`) already lets them read it; its attribute `prefixes` is a binary set
of 8-byte hash prefixes. An item without the attribute is an empty set; no item means the set was never
built (the table is not migrated yet).
"""

from __future__ import annotations

from typing import Any

from fileapi.metering.dynamo.items import KEY_ITEM_READ
from fileapi.metering.legacy_keys import prefix_of, prefixes_of
from fileapi.storage.table import ITEM_PRESENT, ConditionFailed, DynamoTable, key_of

SET_PK = "KEY#LEGACY"
SET_SK = "SET"
PREFIXES = "prefixes"


def read_legacy_set(table: DynamoTable) -> frozenset[bytes] | None:
    """The stored prefixes (one GetItem), or None when the table has no set."""
    item = table.get(SET_PK, SET_SK, attributes=KEY_ITEM_READ)
    if item is None:
        return None
    return frozenset(bytes(value) for value in item.get(PREFIXES, {}).get("BS", []))


def seal_legacy_set(table: DynamoTable) -> int | None:
    """Store the set from the KEY items present now, unless the table holds one already (the set is closed:
    built once). Returns the number of prefixes written, or None when a set was there.

    :raises ValueError: more keys than the set's item holds (`legacy_keys.MAX_KEYS`); nothing is written.
    """
    if table.get(SET_PK, SET_SK) is not None:
        return None
    links = table.scan(
        limit=2**62,
        FilterExpression="sk = :key AND pk <> :set",
        ExpressionAttributeValues={":key": {"S": "KEY"}, ":set": {"S": SET_PK}},
        ProjectionExpression="pk",
    )
    prefixes = prefixes_of(str(item["pk"]["S"]).removeprefix("KEY#") for item in links)
    item: dict[str, Any] = key_of(SET_PK, SET_SK)
    if prefixes:
        item[PREFIXES] = {"BS": sorted(prefixes)}
    return len(prefixes) if table.put_absent(item) else None


def discard_from_legacy_set(table: DynamoTable, key_hash: str) -> None:
    """Take the key's prefix out of the set, if the table has one (idempotent)."""
    try:
        table.conditional_update(
            key_of(SET_PK, SET_SK),
            idempotent=True,
            UpdateExpression=f"DELETE {PREFIXES} :prefix",
            ConditionExpression=ITEM_PRESENT,
            ExpressionAttributeValues={":prefix": {"BS": [prefix_of(key_hash)]}},
        )
    except ConditionFailed:
        return
