"""How accounts and admission items are written as DynamoDB items (one place for both stores).

An account is two kinds of items: its admission items (`ACCOUNT#<id>` / `PROFILE`, and `ACCOUNT#<id>#<k>` /
`SHARD` for a key spread over several), which hold only what admission reads (`ADMISSION_READ`), and its
contact item (`CONTACT#<id>` / `CONTACT`: e-mail address, payment customer, overrides), which only the
account and billing functions read. The converter functions' IAM policy reaches `ACCOUNT#*` and `KEY#*`
partitions only, so no write of theirs can return the contact item's attributes.
"""

from __future__ import annotations

from typing import Any

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.state import DAYS, NO_PERIOD, RECENT_SLOTS, MeterState
from fileapi.storage.table import int_attr, n, s, str_attr

PROFILE_SK = "PROFILE"
SHARD_SK = "SHARD"
CONTACT_SK = "CONTACT"
PROFILE_FIELDS = ("plan", "status", "key_hash")
OPTIONAL_STR = ("customer_id",)
OPTIONAL_INT = ("quota_override", "sustained_override", "burst_override")  # numbers (sustained may be fractional)
# What the contact item holds; an account item of the previous release held these too (until migrated).
CONTACT_FIELDS = ("email", *OPTIONAL_STR, *OPTIONAL_INT)
# The limits the admission write enforces, kept on each admission item (derived from plan and overrides).
LIMIT_FIELDS = ("quota", "base_quota", "plan_quota", "interval_us", "burst", "shard", "shards")


def day_name(day: int) -> str:
    """The attribute of the count of day `day` (1-31) of the item's month."""
    return f"d{day}"


DAY_NAMES = tuple(day_name(day) for day in range(1, DAYS + 1))

# What admission reads of an account's items (state_from_item) and of a key's item; the converter functions'
# IAM policy allows these attributes and no others (template.yaml, tests/build/test_template_policies.py).
KEY_ITEM_READ = ("pk", "sk", "account_id", "prefixes")  # prefixes: the set of earlier-format keys
ADMISSION_READ = (
    "pk",
    "sk",
    "key_hash",
    "status",
    "plan",
    "quota",
    "base_quota",
    "plan_quota",
    "interval_us",
    "burst",
    "shard",
    "shards",
    "tat",
    "period",
    "used",
    "forgiven",
    "prev_period",
    "prev_used",
    "prev_forgiven",
    *DAY_NAMES,
    *(f"r{slot}" for slot in range(RECENT_SLOTS)),
    "last_refund",
    "last_forgiven",
)


def account_pk(account_id: str) -> str:
    return f"ACCOUNT#{account_id}"


def shard_key(account_id: str, shard: int) -> dict[str, Any]:
    """The key of an admission item: shard 0 is the account's own item; the others have partition keys of
    their own (a partition takes 1,000 writes a second, whatever its items)."""
    if shard == 0:
        return {"pk": s(account_pk(account_id)), "sk": s(PROFILE_SK)}
    return {"pk": s(f"{account_pk(account_id)}#{shard}"), "sk": s(SHARD_SK)}


def key_pk(key_hash: str) -> str:
    return f"KEY#{key_hash}"


def email_pk(email: str) -> str:
    return f"EMAIL#{email.lower()}"


def customer_pk(customer_id: str) -> str:
    return f"CUSTOMER#{customer_id}"


def contact_pk(account_id: str) -> str:
    return f"CONTACT#{account_id}"


def account_from_items(profile: dict[str, Any], contact: dict[str, Any] | None) -> Account:
    """The Account of a PROFILE item and the account's contact item (None: an item of the previous release
    not migrated yet, which holds the contact fields itself)."""
    own = profile if contact is None else contact
    fields: dict[str, Any] = {name: profile[name]["S"] for name in PROFILE_FIELDS}
    fields.update({name: own[name]["S"] for name in ("email", *OPTIONAL_STR) if name in own})
    fields.update({name: _number(own[name]["N"]) for name in OPTIONAL_INT if name in own})
    return Account(account_id=profile["pk"]["S"].removeprefix("ACCOUNT#"), **fields)


def contact_attributes(account: Account) -> dict[str, Any]:
    """The contact fields of `account` that are set (the address in lower case)."""
    attributes: dict[str, Any] = {"email": s(account.email.lower())}
    for name in OPTIONAL_STR:
        if getattr(account, name) is not None:
            attributes[name] = s(getattr(account, name))
    for name in OPTIONAL_INT:
        if getattr(account, name) is not None:
            attributes[name] = {"N": str(getattr(account, name))}
    return attributes


def is_legacy(item: dict[str, Any]) -> bool:
    """A PROFILE item of the first layout (its bucket and count were in USAGE#<month> items)."""
    return "interval_us" not in item


def state_from_item(item: dict[str, Any]) -> MeterState:
    """The admission view of a PROFILE item (of the current layout)."""

    def number(name: str) -> int:
        return int_attr(item, name, 0) or 0

    return MeterState(
        account_id=item["pk"]["S"].removeprefix("ACCOUNT#").partition("#")[0],
        key_hash=item["key_hash"]["S"],
        status=item["status"]["S"],
        plan=item["plan"]["S"],
        quota=number("quota"),
        interval_us=number("interval_us"),
        burst=number("burst"),
        tat_us=number("tat"),
        period=str_attr(item, "period", NO_PERIOD) or NO_PERIOD,
        used=number("used"),
        forgiven=number("forgiven"),
        shard=number("shard"),
        shards=number("shards") or 1,
        base_quota=number("base_quota") if "base_quota" in item else number("quota"),
        plan_quota=number("plan_quota") if "plan_quota" in item else number("base_quota") or number("quota"),
        prev_period=str_attr(item, "prev_period", NO_PERIOD) or NO_PERIOD,
        prev_used=number("prev_used"),
        prev_forgiven=number("prev_forgiven"),
        days=tuple(number(name) for name in DAY_NAMES),
        recent=tuple(str_attr(item, slot_name(slot), "") or "" for slot in range(RECENT_SLOTS)),
        last_refund=str_attr(item, "last_refund", "") or "",
        last_forgiven=str_attr(item, "last_forgiven", "") or "",
    )


def slot_name(slot: int) -> str:
    """The attribute of a recent-admission slot."""
    return f"r{slot}"


def limit_attributes(limits: Limits, shard: int = 0) -> dict[str, Any]:
    """What admission item `shard` enforces under `limits` (its quota: its share of the monthly quota).
    The shard number, the number of shards and the key's quota are written only for sharded keys (an
    item of an unsharded key is shard 0 of 1, and its quota is the key's), to keep items under 1 KB."""
    share = limits.quota_share(shard)
    attributes = {
        "quota": n(share),
        "base_quota": n(share),
        "interval_us": n(limits.shard_interval_us),
        "burst": n(limits.shard_burst),
    }
    if limits.shards > 1:
        attributes.update({"plan_quota": n(limits.quota_monthly), "shard": n(shard), "shards": n(limits.shards)})
    return attributes


# Written for sharded keys only (see limit_attributes); removed when a key is laid out on one item again.
SHARDED_ONLY_FIELDS = ("plan_quota", "shard", "shards")


def shard_item(account: Account, limits: Limits, shard: int) -> dict[str, Any]:
    """A new admission item of a sharded key other than the account's own (shard > 0)."""
    return {
        **shard_key(account.account_id, shard),
        "key_hash": s(account.key_hash),
        "status": s(account.status),
        "plan": s(account.plan),
        **limit_attributes(limits, shard),
        **fresh_meter_attributes(),
    }


def profile_attributes(account: Account, limits: Limits) -> dict[str, Any]:  # the account's own item (shard 0)
    """What the account's admission item holds of it: key hash, plan, status and the limits derived from its
    plan and overrides (not the bucket or the counts; nothing of the contact item)."""
    attributes: dict[str, Any] = {name: s(getattr(account, name)) for name in PROFILE_FIELDS}
    attributes.update(limit_attributes(limits))
    return attributes


def fresh_meter_attributes() -> dict[str, Any]:
    """The bucket and counts of a new admission item: full bucket, no month started."""
    return {
        "tat": n(0),
        "period": s(NO_PERIOD),
        "used": n(0),
        "forgiven": n(0),
        "prev_period": s(NO_PERIOD),
        "prev_used": n(0),
        "prev_forgiven": n(0),
    }


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value
