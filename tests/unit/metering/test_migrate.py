"""Items of the first layout (a deployed stack's keys and usage) keep working, and `migrate_table` converts them."""

from __future__ import annotations

from datetime import UTC, datetime

from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.migrate import migrate_table
from fileapi.metering.keys import hash_key, key_from_random
from fileapi.metering.meter import Meter
from fileapi.metering.usage import usage_report
from fileapi.storage.table import DynamoTable

NOW_US = int(datetime(2026, 11, 20, 12, 0, tzinfo=UTC).timestamp() * 1_000_000)
KEY = key_from_random("L" * 43)


def put_legacy_account(table: DynamoTable, account_id: str, *, key: str, used: int) -> None:
    """The items the first layout wrote for one account: profile, key with a profile copy, e-mail, usage."""
    profile = {
        "email": {"S": f"{account_id}@example.com"},
        "plan": {"S": "pro"},
        "status": {"S": "active"},
        "key_hash": {"S": hash_key(key)},
        "quota_override": {"N": "500"},
    }
    items = [
        {"pk": {"S": f"ACCOUNT#{account_id}"}, "sk": {"S": "PROFILE"}, **profile},
        {"pk": {"S": f"KEY#{hash_key(key)}"}, "sk": {"S": "KEY"}, "account_id": {"S": account_id}, **profile},
        {"pk": {"S": f"EMAIL#{account_id}@example.com"}, "sk": {"S": "EMAIL"}, "account_id": {"S": account_id}},
        {
            "pk": {"S": f"ACCOUNT#{account_id}"},
            "sk": {"S": "USAGE#2026-11"},
            "used": {"N": str(used)},
            "tat": {"N": str(NOW_US - 10_000_000)},
            "last_request": {"S": "old"},
        },
    ]
    for item in items:
        table.client.put_item(TableName=table.table_name, Item=item)


def test_a_legacy_account_is_admitted_and_keeps_its_month(dynamo_table: DynamoTable) -> None:
    # GIVEN an account written by the first layout, 41 requests into November
    put_legacy_account(dynamo_table, "legacy", key=KEY, used=41)
    meter = Meter(dynamo_stores(dynamo_table).admission, clock=lambda: NOW_US)
    # WHEN its key is used, without any migration step
    admission = meter.admit(f"Bearer {KEY}", counted=True, request_id="r1")
    # THEN it is admitted on its override quota, counting on from the month's usage item
    assert (admission.state.quota, admission.state.used, admission.quota_remaining) == (500, 42, 458)
    assert dynamo_stores(dynamo_table).accounts.get_account_by_key(hash_key(KEY)) is not None


def test_migrate_table_converts_every_account_once(dynamo_table: DynamoTable) -> None:
    put_legacy_account(dynamo_table, "first", key=KEY, used=3)
    put_legacy_account(dynamo_table, "second", key=key_from_random("M" * 43), used=0)
    # WHEN migrated twice THEN the first run converts both accounts and trims both keys, the second nothing
    first = migrate_table(dynamo_table)
    second = migrate_table(dynamo_table)
    assert (first.accounts, first.keys, first.current) == (2, 2, 0)
    assert (second.accounts, second.keys, second.current) == (0, 0, 2)
    # AND the key items hold only the account id; the account keeps its data and its month
    key_item = dynamo_table.get(f"KEY#{hash_key(KEY)}", "KEY")
    assert key_item is not None and set(key_item) == {"pk", "sk", "account_id"}
    state = dynamo_stores(dynamo_table).admission.read("first")
    assert state is not None and (state.quota, state.period, state.used, state.plan) == (500, "2026-11", 3, "pro")
    account = dynamo_stores(dynamo_table).accounts.get_account("first")
    assert account is not None and (account.email, account.quota_override) == ("first@example.com", 500)


def test_a_legacy_months_count_shows_on_its_first_day_and_is_forgiven_last(dynamo_table: DynamoTable) -> None:
    # GIVEN an account of the first layout, 41 requests into November (their days unknown), used on the 20th
    put_legacy_account(dynamo_table, "legacy", key=KEY, used=41)
    meter = Meter(dynamo_stores(dynamo_table).admission, clock=lambda: NOW_US)
    admission = meter.admit(f"Bearer {KEY}", counted=True, request_id="r1")
    # THEN the 41 show on the 1st and the new request on the 20th
    report = meter.usage(admission)
    assert (report.daily[0].requests, report.daily[19].requests, report.used_this_month) == (41, 1, 42)
    # WHEN two lost admissions of the 20th that had not applied are forgiven
    for request_id in ("lost-1", "lost-2"):
        meter.settler.forgive("legacy", "2026-11", request_id, 0, day=20)
    # THEN the first takes the 20th's unit, the second one of the units without a day
    report = usage_report(dynamo_stores(dynamo_table).admission.read_shards("legacy"), now_us=NOW_US)
    assert (report.daily[0].requests, report.daily[19].requests, report.used_this_month) == (40, 0, 40)
