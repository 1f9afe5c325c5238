"""`fileapi tables migrate`: items of the first layout brought to the current one, idempotently.

The first layout kept a copy of the profile in each KEY#<hash> item (one read authenticated) and the
bucket and the month's count in ACCOUNT#<id>/USAGE#<YYYY-MM> items. The current one keeps the
admission state in the PROFILE item and only the account id in KEY items. An old PROFILE item also
works unmigrated (the first admission that meets it upgrades it); this command does all at once and
trims the KEY items. USAGE# items stay as they are (history, deleted by TTL).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from fileapi.metering.dynamo.admission_store import upgrade_legacy_item
from fileapi.metering.dynamo.items import OPTIONAL_INT, OPTIONAL_STR, PROFILE_FIELDS, PROFILE_SK, is_legacy
from fileapi.metering.dynamo.table import ITEM_PRESENT, ConditionFailed, DynamoTable

# Attributes the first layout copied into KEY items (only account_id is kept).
_KEY_COPIES = (*PROFILE_FIELDS, *OPTIONAL_STR, *OPTIONAL_INT)


@dataclass(frozen=True)
class MigrationReport:
    """What one run changed: accounts upgraded, KEY items trimmed, accounts that were current already."""

    accounts: int
    keys: int
    current: int


def migrate_table(table: DynamoTable) -> MigrationReport:
    """Upgrade every PROFILE item of the first layout and trim every KEY item; safe to run again."""
    accounts = keys = current = 0
    for item in _scan(table):
        sk = item["sk"]["S"]
        if sk == PROFILE_SK:
            if is_legacy(item):
                upgrade_legacy_item(table, item)
                accounts += 1
            else:
                current += 1
        elif sk == "KEY" and any(name in item for name in _KEY_COPIES):
            present = [name for name in _KEY_COPIES if name in item]
            try:
                table.conditional_update(
                    {"pk": item["pk"], "sk": item["sk"]},
                    idempotent=True,
                    UpdateExpression="REMOVE " + ", ".join(f"#{name}" for name in present),
                    ConditionExpression=ITEM_PRESENT,
                    ExpressionAttributeNames={f"#{name}": name for name in present},
                )
                keys += 1
            except ConditionFailed:
                pass  # rotated away meanwhile
    return MigrationReport(accounts=accounts, keys=keys, current=current)


def _scan(table: DynamoTable) -> list[dict[str, Any]]:
    return table.scan(limit=sys.maxsize)
