"""The writes of a plan or status change, as operations of one transaction (see fileapi.metering.resharding for
what changes): each admission item laid out again, and the account's contact item."""

from __future__ import annotations

from typing import Any

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.dynamo.items import (
    CONTACT_FIELDS,
    CONTACT_SK,
    DAY_NAMES,
    SHARDED_ONLY_FIELDS,
    contact_attributes,
    contact_pk,
    limit_attributes,
    shard_item,
    shard_key,
)
from fileapi.metering.resharding import Action, ShardChange
from fileapi.metering.state import MeterState
from fileapi.storage.table import ITEM_ABSENT, key_of, n, s


def contact_key(account_id: str) -> dict[str, Any]:
    """The key of the account's contact item."""
    return key_of(contact_pk(account_id), CONTACT_SK)


def contact_update(account: Account) -> dict[str, Any]:
    """The operation that writes `account`'s customer and overrides to its contact item (its address is kept; an
    account of the previous release gets its contact item, from the address it was read with)."""
    attributes = contact_attributes(account)
    email = attributes.pop("email")
    removed = [name for name in CONTACT_FIELDS if name != "email" and name not in attributes]
    sets = ["email = if_not_exists(email, :email)", *(f"#{name} = :{name}" for name in attributes)]
    operation: dict[str, Any] = {
        "Key": contact_key(account.account_id),
        "UpdateExpression": _expression(sets, removed),
        "ExpressionAttributeValues": {":email": email, **{f":{name}": value for name, value in attributes.items()}},
    }
    names = {f"#{name}": name for name in (*attributes, *removed)}
    if names:
        operation["ExpressionAttributeNames"] = names
    return {"Update": operation}


def shard_operation(account: Account, limits: Limits, change: ShardChange, period: str) -> dict[str, Any]:
    """The operation that makes one change of a re-layout."""
    key = shard_key(account.account_id, change.shard)
    if change.action is Action.CREATE:
        item = {**shard_item(account, limits, change.shard), "period": s(period), "quota": n(change.quota)}
        return {"Put": {"Item": item, "ConditionExpression": ITEM_ABSENT}}
    seen = change.seen
    assert seen is not None
    if change.action is Action.REMOVE:
        condition, values = _as_seen(seen)
        return {"Delete": {"Key": key, "ConditionExpression": condition, "ExpressionAttributeValues": values}}
    assigned: dict[str, Any] = {
        **limit_attributes(limits, change.shard),
        "quota": n(change.quota),
        "plan": s(account.plan),
        "status": s(account.status),
    }
    removed = [name for name in SHARDED_ONLY_FIELDS if name not in assigned]
    if change.shard == 0:
        removed += CONTACT_FIELDS  # an item of the previous release held them: they live in the contact item now
    sets = [f"#{name} = :{name}" for name in assigned]
    values = {f":{name}": value for name, value in assigned.items()}
    values[":seen_period"] = s(seen.period)
    moved_days = {name: count for name, count in zip(DAY_NAMES, change.add_days, strict=True) if count}
    if change.action is Action.START:
        sets += ["prev_period = period", "prev_used = used", "prev_forgiven = forgiven", "period = :period"]
        sets += ["used = :moved_used", "forgiven = :moved_forgiven"]
        sets += [f"{name} = :moved_{name}" for name in moved_days]
        removed += [name for name in DAY_NAMES if name not in moved_days]  # the closed month's days
        values[":period"] = s(period)
    elif change.add_used or change.add_forgiven:
        sets += ["used = used + :moved_used", "forgiven = forgiven + :moved_forgiven"]
        sets += [f"{name} = if_not_exists({name}, :zero) + :moved_{name}" for name in moved_days]
        if moved_days:
            values[":zero"] = n(0)
    if change.action is Action.START or change.add_used or change.add_forgiven:
        values.update({":moved_used": n(change.add_used), ":moved_forgiven": n(change.add_forgiven)})
        values.update({f":moved_{name}": n(count) for name, count in moved_days.items()})
    return {
        "Update": {
            "Key": key,
            "UpdateExpression": _expression(sets, removed),
            "ConditionExpression": "period = :seen_period",
            "ExpressionAttributeNames": {f"#{name}": name for name in (*assigned, *removed)},
            "ExpressionAttributeValues": values,
        }
    }


def _as_seen(seen: MeterState) -> tuple[str, dict[str, Any]]:
    """A condition that holds while an item's month, counts and days are as `seen` (whose counts move elsewhere)."""
    conditions = ["period = :period", "used = :used", "forgiven = :forgiven"]
    values: dict[str, Any] = {":period": s(seen.period), ":used": n(seen.used), ":forgiven": n(seen.forgiven)}
    for name, count in zip(DAY_NAMES, seen.days, strict=True):
        if count:
            conditions.append(f"{name} = :seen_{name}")
            values[f":seen_{name}"] = n(count)
        else:
            conditions.append(f"(attribute_not_exists({name}) OR {name} = :zero)")
            values[":zero"] = n(0)
    return " AND ".join(conditions), values


def _expression(sets: list[str], removed: list[str]) -> str:
    return "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(f"#{name}" for name in removed) if removed else "")
