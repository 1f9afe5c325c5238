"""AdmissionStore on DynamoDB: one conditional UpdateItem on the account's item per admission.

The condition is built from named parts (see `Attempt` for what each means); a failed condition
returns the item as it was (ReturnValuesOnConditionCheckFailure=ALL_OLD), from which the meter
tells which part failed without another read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fileapi.metering.dynamo.items import (
    ADMISSION_READ,
    DAY_NAMES,
    KEY_ITEM_READ,
    PROFILE_SK,
    account_from_items,
    account_pk,
    day_name,
    fresh_meter_attributes,
    is_legacy,
    key_pk,
    limit_attributes,
    shard_item,
    shard_key,
    slot_name,
    state_from_item,
)
from fileapi.metering.dynamo.legacy_set import read_legacy_set
from fileapi.metering.plans import contract_plan
from fileapi.metering.state import MeterState, SettleTarget, request_tag, settle_target
from fileapi.metering.storage import AdmissionStore, Attempt, BucketCase, Refused, StoreUnavailable
from fileapi.storage.table import (
    ITEM_PRESENT,
    ConditionFailed,
    DynamoTable,
    TransactionCanceled,
    int_attr,
    key_of,
    n,
    s,
    str_attr,
)

# Named parts of the admission condition.
KEY_IS_CURRENT = "key_hash = :key_hash"
SUBSCRIPTION_ACTIVE = "#status IN (:active, :trialing)"
LIMITS_AS_EXPECTED = "interval_us = :interval AND burst = :burst"
SAME_MONTH = "period = :period"
MONTH_BEHIND = "period < :period"
QUOTA_LEFT = "used < quota"
QUOTA_NOT_ZERO = "quota > :zero"
BUCKET_IDLE = "tat <= :now"
BUCKET_BUSY = "tat BETWEEN :now AND :ceiling"
BUCKET_HELD = "tat > :now"
LEGACY_ITEM = f"{ITEM_PRESENT} AND attribute_not_exists(interval_us)"


# A settlement's writes: the admission's own day, then where the refused write's item says (another day, the
# closed month); more only when the item keeps changing between them.
SETTLE_WRITES = 6


@dataclass(frozen=True)
class Charge:
    """A change of the charge: a refund (used - 1) or a forgiveness (forgiven + 1); either takes the unit off a
    day of the month, and tags the item with the request (`tag`), so that a retry recognises itself."""

    counter: str
    step: str
    tag: str


REFUND = Charge("used", "- :one", "last_refund")
FORGIVE = Charge("forgiven", "+ :one", "last_forgiven")


def _settle_write(target: SettleTarget, charge: Charge, period: str, marker: str) -> dict[str, Any]:
    """The UpdateItem of one settlement at `target` (see `fileapi.metering.state.settle_target`)."""
    counter = ("prev_" if target.closed else "") + charge.counter
    conditions = [
        f"{'prev_period' if target.closed else 'period'} = :period",
        f"(attribute_not_exists({charge.tag}) OR {charge.tag} <> :rid)",
    ]
    updates = [f"{counter} = {counter} {charge.step}", f"{charge.tag} = :rid"]
    if charge is REFUND:
        conditions.append(f"{counter} > :zero")  # a refund never takes a count below zero
    if not target.closed and target.day is not None:
        day = day_name(target.day)
        conditions.append(f"{day} > :zero")
        updates.append(f"{day} = {day} - :one")
    elif not target.closed:  # no day has a count: the unit is one counted before the item kept days
        conditions.append("used > forgiven")
        conditions += [f"(attribute_not_exists({day}) OR {day} = :zero)" for day in DAY_NAMES]
    condition = " AND ".join(conditions)
    values = {":period": s(period), ":one": n(1), ":rid": s(marker)}
    if ":zero" in condition:
        values[":zero"] = n(0)
    return {
        "UpdateExpression": "SET " + ", ".join(updates),
        "ConditionExpression": condition,
        "ExpressionAttributeValues": values,
    }


class DynamoAdmissionStore(AdmissionStore):
    """AdmissionStore over a `DynamoTable`."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    def find_account_id(self, key_hash: str) -> str | None:
        item = self.table.get(key_pk(key_hash), "KEY", attributes=KEY_ITEM_READ)
        return None if item is None else str(item["account_id"]["S"])

    def legacy_key_prefixes(self) -> frozenset[bytes] | None:
        return read_legacy_set(self.table)

    def admit(self, attempt: Attempt) -> MeterState:
        key = shard_key(attempt.account_id, attempt.shard)
        conditions = [KEY_IS_CURRENT, SUBSCRIPTION_ACTIVE, LIMITS_AS_EXPECTED]
        values: dict[str, Any] = {
            ":key_hash": s(attempt.key_hash),
            ":active": s("active"),
            ":trialing": s("trialing"),
            ":interval": n(attempt.interval_us),
            ":burst": n(attempt.burst),
            ":period": s(attempt.period),
            ":now": n(attempt.bucket.now_us),
        }
        if attempt.case is BucketCase.IDLE:
            conditions.append(BUCKET_IDLE)
            updates = ["tat = :idle_tat"]
            values[":idle_tat"] = n(attempt.new_tat_if_idle)
        else:
            conditions.append(BUCKET_BUSY)
            updates = ["tat = tat + :interval"]
            values[":ceiling"] = n(attempt.bucket.ceiling_us)
        day = day_name(attempt.day)
        removed: list[str] = []
        if attempt.new_month:
            conditions.append(MONTH_BEHIND)
            updates += [
                "prev_period = period",
                "prev_used = used",
                "prev_forgiven = forgiven",
                "period = :period",
                "used = :first",
                "forgiven = :zero",
                "quota = base_quota",
                f"{day} = :first",
            ]
            removed = [name for name in DAY_NAMES if name != day]  # the closed month's days
            values[":zero"] = n(0)
            values[":first"] = n(1 if attempt.reserve else 0)
            if attempt.reserve:
                conditions.append(QUOTA_NOT_ZERO)
        else:
            conditions.append(SAME_MONTH)
            if attempt.reserve:
                conditions.append(QUOTA_LEFT)
                updates += ["used = used + :one", f"{day} = if_not_exists({day}, :zero) + :one"]
                values[":one"] = n(1)
                values[":zero"] = n(0)
        slot, tag = attempt.tag
        updates.append(f"{slot_name(slot)} = :tag")
        values[":tag"] = s(tag)
        try:
            item = self.table.conditional_update(
                key,
                UpdateExpression="SET " + ", ".join(updates) + (" REMOVE " + ", ".join(removed) if removed else ""),
                ConditionExpression=" AND ".join(conditions),
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues=values,
            )
            return state_from_item(item)
        except ConditionFailed as failed:
            if failed.item is not None and attempt.shard == 0 and is_legacy(failed.item):
                upgrade_legacy_item(self.table, failed.item)
                return self.admit(attempt)
            raise Refused(state_from_item(failed.item) if failed.item is not None else None) from None

    def refund(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._settle(shard_key(account_id, shard), period, request_id, day, REFUND)

    def forgive(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._settle(shard_key(account_id, shard), period, request_id, day, FORGIVE)

    def _settle(self, key: dict[str, Any], period: str, request_id: str, day: int, charge: Charge) -> MeterState | None:
        """One tagged change of a month's counter, where `settle_target` says; the first write assumes the
        admission's own day in the current month (a refused one brings the item, which says where)."""
        marker = request_tag(request_id)[1]
        target = SettleTarget(closed=False, day=day)
        for _ in range(SETTLE_WRITES):
            try:
                item = self.table.conditional_update(key, **_settle_write(target, charge, period, marker))
            except ConditionFailed as failed:
                if failed.item is None:
                    return None
                seen = state_from_item(failed.item)
                if str_attr(failed.item, charge.tag) == marker:
                    return seen  # an earlier attempt of this very change applied
                next_target = settle_target(seen, period, day, refund=charge is REFUND)
                if next_target is None:
                    return None
                target = next_target
                continue
            return state_from_item(item)
        raise StoreUnavailable("the account's usage kept changing while a unit was settled")

    def hold(self, account_id: str, *, shard: int = 0, by_us: int, now_us: int) -> MeterState | None:
        key = shard_key(account_id, shard)
        values = {":now": n(now_us)}
        idle: dict[str, Any] = {  # TAT in the past: the bucket is full, and moves to now + by
            "UpdateExpression": "SET tat = :held",
            "ConditionExpression": f"{ITEM_PRESENT} AND {BUCKET_IDLE}",
            "ExpressionAttributeValues": {**values, ":held": n(now_us + by_us)},
        }
        busy: dict[str, Any] = {
            "UpdateExpression": "SET tat = tat + :by",
            "ConditionExpression": f"{ITEM_PRESENT} AND {BUCKET_HELD}",
            "ExpressionAttributeValues": {**values, ":by": n(by_us)},
        }
        case = busy  # a key whose job just ran out of time has most likely sent requests lately
        for _ in range(3):
            try:
                return state_from_item(self.table.conditional_update(key, **case))
            except ConditionFailed as failed:
                if failed.item is None:
                    return None
                case = busy if (int_attr(failed.item, "tat", 0) or 0) > now_us else idle
        raise StoreUnavailable("the account's bucket kept changing while a job's seconds were charged to it")

    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        key = shard_key(account_id, shard)
        item = self.table.get(key["pk"]["S"], key["sk"]["S"], attributes=ADMISSION_READ)
        if item is None:
            return None
        if is_legacy(item):  # the upgrade needs the whole item (run `fileapi tables migrate` before deploying)
            whole = self.table.get(key["pk"]["S"], key["sk"]["S"])
            return None if whole is None or upgrade_legacy_item(self.table, whole) is None else self.read(account_id)
        return state_from_item(item)

    def read_shards(self, account_id: str) -> list[MeterState]:
        return read_shards(self.table, account_id)

    def move_quota(self, source: MeterState, target: int, units: int) -> bool:
        try:
            self.table.transact(
                [
                    {
                        "Update": {
                            "Key": shard_key(source.account_id, source.shard),
                            "UpdateExpression": "SET quota = quota - :units",
                            "ConditionExpression": "period = :period AND quota = :seen AND used <= :most",
                            "ExpressionAttributeValues": {
                                ":units": n(units),
                                ":period": s(source.period),
                                ":seen": n(source.quota),
                                ":most": n(source.quota - units),
                            },
                        }
                    },
                    {
                        "Update": {
                            "Key": shard_key(source.account_id, target),
                            "UpdateExpression": "SET quota = quota + :units",
                            "ConditionExpression": "period = :period",
                            "ExpressionAttributeValues": {":units": n(units), ":period": s(source.period)},
                        }
                    },
                ]
            )
        except TransactionCanceled:
            return False
        return True


def read_shards(table: DynamoTable, account_id: str) -> list[MeterState]:
    """Every admission item of an account, by shard (the first upgraded from the first layout if need be)."""
    first = table.get(account_pk(account_id), PROFILE_SK)
    if first is not None and is_legacy(first):
        first = upgrade_legacy_item(table, first)
    if first is None:
        return []
    head = state_from_item(first)
    if head.shards == 1:
        return [head]
    items = table.batch_get([shard_key(account_id, shard) for shard in range(1, head.shards)])
    return [head, *sorted((state_from_item(item) for item in items), key=lambda state: state.shard)]


def upgrade_legacy_item(table: DynamoTable, item: dict[str, Any]) -> dict[str, Any] | None:
    """Give a PROFILE item of the first layout its admission attributes, idempotently.

    The first layout kept the bucket and the count in ACCOUNT#<id>/USAGE#<YYYY-MM> items; the latest
    of them supplies the period, `used` and `tat` (an older month is closed by the next admission, as
    any month is). Returns the upgraded item, or None when the account is gone. Used on the request
    path (an old item met by an admission) and by `fileapi tables migrate`.
    """
    account = account_from_items(item, None)  # a first-layout item holds the overrides itself
    limits = account.limits_under(contract_plan(account.plan))
    for shard in range(1, limits.shards):  # a plan laid over several items gets the others (fresh) first
        table.put_absent(shard_item(account, limits, shard))
    attributes = {**limit_attributes(limits), **fresh_meter_attributes()}
    latest = table.call(
        lambda: table.client.query(
            TableName=table.table_name,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :usage)",
            ExpressionAttributeValues={":pk": s(account_pk(account.account_id)), ":usage": s("USAGE#")},
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        ),
        idempotent=True,
    ).get("Items", [])
    if latest:
        usage = dict(latest[0])
        attributes["period"] = s(usage["sk"]["S"].removeprefix("USAGE#"))
        attributes["used"] = n(int_attr(usage, "used", 0) or 0)
        attributes["tat"] = n(int_attr(usage, "tat", 0) or 0)
    names = {f"#{name}": name for name in attributes}
    try:
        return table.conditional_update(
            key_of(account_pk(account.account_id), PROFILE_SK),
            idempotent=True,
            UpdateExpression="SET " + ", ".join(f"#{name} = :{name}" for name in attributes),
            ConditionExpression=LEGACY_ITEM,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={f":{name}": value for name, value in attributes.items()},
        )
    except ConditionFailed as failed:  # upgraded meanwhile by another process, or gone
        return failed.item
