"""The contact item: an account's e-mail address, payment customer and overrides live in `CONTACT#<id>`, never
on an item under `ACCOUNT#<id>` (the partitions the converter functions may write, and whose whole items their
writes return); accounts of the previous layout keep working before and while they are migrated."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, issue_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.items import ADMISSION_READ, CONTACT_FIELDS, fresh_meter_attributes, profile_attributes
from fileapi.metering.dynamo.migrate import _move_contact, migrate_table
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.plans import contract_plan
from fileapi.storage.table import DynamoTable

NOW_US = int(datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp() * 1_000_000)
CONTACT = {"pk", "sk", *CONTACT_FIELDS}


def account_items(table: DynamoTable) -> list[dict[str, Any]]:
    """Every item under an ACCOUNT# partition key."""
    return [item for item in table.scan(limit=1000) if item["pk"]["S"].startswith("ACCOUNT#")]


def put_previous_layout_account(table: DynamoTable, account_id: str, *, key: str, email: str) -> dict[str, Any]:
    """The items the previous (admission) layout wrote for one account, the contact fields on its PROFILE
    item; returns that item."""
    account = Account(account_id, email, "pro", "active", hash_key(key), customer_id=f"cus_{account_id}")
    account = replace(account, quota_override=500)
    profile = {"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "PROFILE"}}
    profile |= profile_attributes(account, account.limits_under(contract_plan("pro"))) | fresh_meter_attributes()
    profile |= {"email": {"S": email}, "customer_id": {"S": f"cus_{account_id}"}, "quota_override": {"N": "500"}}
    links = [
        {"pk": {"S": f"KEY#{hash_key(key)}"}, "sk": {"S": "KEY"}},
        {"pk": {"S": f"EMAIL#{email}"}, "sk": {"S": "EMAIL"}},
        {"pk": {"S": f"CUSTOMER#cus_{account_id}"}, "sk": {"S": "CUSTOMER"}},
    ]
    for item in [profile, *({**link, "account_id": {"S": account_id}} for link in links)]:
        table.client.put_item(TableName=table.table_name, Item=item)
    return profile


def test_an_account_keeps_its_contact_fields_off_every_item_a_converter_can_reach(dynamo_table: DynamoTable) -> None:
    # GIVEN an account made by a checkout (customer, pending delivery), then moved to a plan spread over two
    # items with every override, then its key rotated
    stores = dynamo_stores(dynamo_table)
    account, _ = issue_key(
        stores.accounts, email="Buyer@Example.com", plan="pro", quota=900, customer_id="cus_1", deliver=True
    )
    change_account(stores.accounts, replace(account, plan="business", sustained_override=450.5, burst_override=900))
    moved = stores.accounts.get_account(account.account_id)
    assert moved is not None
    stores.accounts.replace_key(moved, hash_key(generate_key()))
    # THEN every item under ACCOUNT# holds admission attributes only
    items = account_items(dynamo_table)
    assert {item["sk"]["S"] for item in items} == {"PROFILE", "SHARD"}
    assert all(set(item) <= set(ADMISSION_READ) for item in items)
    # AND the contact item holds the address, the customer and the overrides, which the account store reads
    contact = dynamo_table.get(f"CONTACT#{account.account_id}", "CONTACT")
    assert contact is not None and set(contact) == CONTACT
    current = stores.accounts.get_account(account.account_id)
    assert current is not None
    assert (current.email, current.customer_id, current.quota_override) == ("buyer@example.com", "cus_1", 900)
    assert (current.sustained_override, current.burst_override, current.plan) == (450.5, 900, "business")
    assert stores.accounts.list_accounts() == [current]
    assert stores.accounts.get_account_by_customer("cus_1") == current


def test_an_override_removed_is_removed_from_the_contact_item(dynamo_table: DynamoTable) -> None:
    stores = dynamo_stores(dynamo_table)
    account, _ = issue_key(stores.accounts, email="o@example.com", plan="pro", quota=900)
    change_account(stores.accounts, replace(account, quota_override=None))
    contact = dynamo_table.get(f"CONTACT#{account.account_id}", "CONTACT")
    assert contact is not None and set(contact) == {"pk", "sk", "email"}
    current = stores.accounts.get_account(account.account_id)
    assert current is not None and current.quota_override is None


def test_an_account_of_the_previous_layout_is_read_as_it_is_and_moved_by_its_first_change(
    dynamo_table: DynamoTable,
) -> None:
    # GIVEN an account the previous layout wrote (contact fields on its PROFILE item), not migrated
    key = generate_key()
    put_previous_layout_account(dynamo_table, "old", key=key, email="old@example.com")
    stores = dynamo_stores(dynamo_table)
    # THEN it admits, and the account store reads its contact fields from that item
    meter = Meter(stores.admission, clock=lambda: NOW_US)
    assert meter.admit(f"Bearer {key}", counted=True, request_id="r1").state.used == 1
    account = stores.accounts.get_account_by_email("old@example.com")
    assert account is not None and (account.customer_id, account.quota_override) == ("cus_old", 500)
    # WHEN its plan changes THEN its contact fields move to its contact item, the address kept
    change_account(stores.accounts, replace(account, plan="scale"), now=NOW_US / 1e6)
    (profile,) = account_items(dynamo_table)
    assert set(profile) <= set(ADMISSION_READ)
    assert stores.accounts.get_account("old") == replace(account, plan="scale")


def test_an_account_between_the_migrations_two_writes_admits_and_is_read_whole(dynamo_table: DynamoTable) -> None:
    # GIVEN an account of the previous layout whose migration stopped after putting its contact item
    key = generate_key()
    profile = put_previous_layout_account(dynamo_table, "half", key=key, email="half@example.com")
    contact = {name: value for name, value in profile.items() if name in CONTACT_FIELDS}
    dynamo_table.put_absent({"pk": {"S": "CONTACT#half"}, "sk": {"S": "CONTACT"}, **contact})
    stores = dynamo_stores(dynamo_table)
    # THEN it admits and is read whole
    meter = Meter(stores.admission, clock=lambda: NOW_US)
    assert meter.admit(f"Bearer {key}", counted=True, request_id="r1").state.used == 1
    account = stores.accounts.get_account("half")
    assert account is not None and (account.email, account.quota_override) == ("half@example.com", 500)
    # AND the next run finishes it
    report = migrate_table(dynamo_table)
    assert (report.contacts, report.current) == (1, 0)
    (item,) = account_items(dynamo_table)
    assert set(item) <= set(ADMISSION_READ) and stores.accounts.get_account("half") == account


def test_a_migration_never_writes_back_contact_fields_changed_since_it_read_them(dynamo_table: DynamoTable) -> None:
    # GIVEN an account of the previous layout, read by a migration, whose override is then removed by a plan change
    key = generate_key()
    seen = put_previous_layout_account(dynamo_table, "raced", key=key, email="raced@example.com")
    stores = dynamo_stores(dynamo_table)
    account = stores.accounts.get_account("raced")
    assert account is not None
    change_account(stores.accounts, replace(account, quota_override=None), now=NOW_US / 1e6)
    # WHEN the migration moves what it read THEN the contact item keeps the change
    _move_contact(dynamo_table, seen)
    current = stores.accounts.get_account("raced")
    assert current is not None and (current.quota_override, current.email) == (None, "raced@example.com")
    (item,) = account_items(dynamo_table)
    assert set(item) <= set(ADMISSION_READ)
