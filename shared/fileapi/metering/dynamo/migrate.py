"""`fileapi tables migrate`: items of earlier layouts brought to the current one, idempotently, while the service runs.

The first layout kept a copy of the profile in each KEY#<hash> item (one read authenticated) and the
bucket and the month's count in ACCOUNT#<id>/USAGE#<YYYY-MM> items; the admission layout after it kept the
admission state in the PROFILE item, with the e-mail address, the payment customer and the overrides beside
it. The current one keeps those contact fields in the account's contact item (CONTACT#<id>/CONTACT) and
only the account id in KEY items. Old items also work unmigrated: the first admission that meets a
first-layout item upgrades it, and the account store reads the contact fields from the PROFILE item while
the account has no contact item. This command does all at once.

Each account moves in two writes: its contact item is put unless it exists (once it does, it is the one the
account store reads and writes), then the fields are removed from the PROFILE item. An account between the
two still admits (admission reads neither) and still has its address read; a run cut short is finished
by the next. USAGE# items stay as they are (history, deleted by TTL).

The first run also seals the set of earlier-format keys (`fileapi.metering.legacy_keys`) from the key links
present then; later runs leave it as it is (it only shrinks, as those keys are rotated away).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from fileapi.metering.dynamo.admission_store import upgrade_legacy_item
from fileapi.metering.dynamo.items import CONTACT_FIELDS, CONTACT_SK, PROFILE_FIELDS, PROFILE_SK, contact_pk, is_legacy
from fileapi.metering.dynamo.legacy_set import seal_legacy_set
from fileapi.storage.table import ITEM_PRESENT, ConditionFailed, DynamoTable, key_of

# Attributes the first layout copied into KEY items (only account_id is kept).
_KEY_COPIES = (*PROFILE_FIELDS, *CONTACT_FIELDS)


@dataclass(frozen=True)
class MigrationReport:
    """What one run changed: accounts upgraded from the first layout, accounts whose contact fields moved to
    their contact item, KEY items trimmed, accounts that were current already, and the keys put in the set of
    earlier-format keys (None: the set was there already)."""

    accounts: int
    contacts: int
    keys: int
    current: int
    legacy_keys: int | None = None


def migrate_table(table: DynamoTable) -> MigrationReport:
    """Upgrade every PROFILE item of an earlier layout and trim every KEY item; safe to run again, and while
    the service runs."""
    accounts = contacts = keys = current = 0
    for item in _scan(table):
        sk = item["sk"]["S"]
        if sk == PROFILE_SK:
            profile: dict[str, Any] | None = item
            if is_legacy(item):
                profile = upgrade_legacy_item(table, item)
                accounts += 1
            if profile is not None and any(name in profile for name in CONTACT_FIELDS):
                _move_contact(table, profile)
                contacts += 1
            elif not is_legacy(item):
                current += 1
        elif sk == "KEY" and _remove(table, item, [name for name in _KEY_COPIES if name in item]):
            keys += 1
    sealed = seal_legacy_set(table)
    return MigrationReport(accounts=accounts, contacts=contacts, keys=keys, current=current, legacy_keys=sealed)


def _move_contact(table: DynamoTable, profile: dict[str, Any]) -> None:
    """Put the account's contact item from the contact fields of its PROFILE item (unless it has one: then that
    one is current), then remove them from the PROFILE item."""
    account_id = profile["pk"]["S"].removeprefix("ACCOUNT#")
    fields = {name: value for name, value in profile.items() if name in CONTACT_FIELDS}
    contact = {**key_of(contact_pk(account_id), CONTACT_SK), **fields}
    table.put_absent(contact)
    _remove(table, profile, [name for name in CONTACT_FIELDS if name in profile])


def _remove(table: DynamoTable, item: dict[str, Any], names: list[str]) -> bool:
    """Remove `names` from `item` if it still exists; False when there are none, or the item is gone (deleted,
    or rotated away meanwhile)."""
    if not names:
        return False
    try:
        table.conditional_update(
            {"pk": item["pk"], "sk": item["sk"]},
            idempotent=True,
            UpdateExpression="REMOVE " + ", ".join(f"#{name}" for name in names),
            ConditionExpression=ITEM_PRESENT,
            ExpressionAttributeNames={f"#{name}": name for name in names},
        )
    except ConditionFailed:
        return False
    return True


def _scan(table: DynamoTable) -> list[dict[str, Any]]:
    return table.scan(limit=sys.maxsize)
