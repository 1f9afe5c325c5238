"""Administrative account operations (key creation, plan and status changes), used by the CLI, the
local runner and billing."""

from __future__ import annotations

import time
import uuid
from dataclasses import replace

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.keys import generate_key, hash_key, is_legacy_key, is_well_formed
from fileapi.metering.months import MICROS, month_period, utc
from fileapi.metering.storage import AccountStore


def create_key(
    store: AccountStore,
    *,
    email: str,
    plan: str,
    quota: int | None = None,
    key: str | None = None,
    status: str = "active",
    customer_id: str | None = None,
    plans: PlanCatalog | None = None,
    earlier_format: bool = False,
) -> str:
    """Create an account holding a new key and return the key.

    :param plan: a contract plan or a custom plan of the store.
    :param quota: monthly quota override (None: the plan's).
    :param key: use this key instead of a random one (`fileapi keys generate` makes one; keys of the earlier
        format are no longer issued, so that their set stays closed: `fileapi.metering.legacy_keys`).
    :param plans: the catalog to look plans up in (default: one over `store`).
    :param earlier_format: `key` may be of the earlier format (a local dev key kept from an earlier release, on
        a table whose set of those keys is not sealed).
    :raises UnknownPlan: no such plan.
    :raises ValueError: quota < 0, or a malformed key.
    :raises AccountExists: the e-mail address or the key is taken.
    """
    _, issued = issue_key(
        store,
        email=email,
        plan=plan,
        quota=quota,
        key=key,
        status=status,
        customer_id=customer_id,
        plans=plans,
        earlier_format=earlier_format,
    )
    return issued


def issue_key(
    store: AccountStore,
    *,
    email: str,
    plan: str,
    quota: int | None = None,
    key: str | None = None,
    status: str = "active",
    customer_id: str | None = None,
    plans: PlanCatalog | None = None,
    deliver: bool = False,
    shared_email: bool = False,
    earlier_format: bool = False,
) -> tuple[Account, str]:
    """Create an account holding a new key; returns the account and the key (see `create_key`).

    :param deliver: store the key's pending e-mail delivery in the same write (see fileapi.account.delivery).
    :param shared_email: the address may already be another account's (see AccountStore.create_account).
    """
    catalog = plans or PlanCatalog(store)
    plan_limits = catalog.get(plan)
    if quota is not None and quota < 0:
        raise ValueError(f"quota must be >= 0, not {quota}")
    key = key or generate_key()
    if not (is_well_formed(key) or (earlier_format and is_legacy_key(key))):
        raise ValueError(
            "not a valid key: a key is 'sk_live_', 43 letters and digits and a 6-character checksum "
            "(keys of the earlier format are no longer issued); make one with `fileapi keys generate`"
        )
    account = Account(
        account_id=uuid.uuid4().hex,
        email=email,
        plan=plan,
        status=status,
        key_hash=hash_key(key),
        quota_override=quota,
        customer_id=customer_id,
    )
    store.create_account(
        account, account.limits_under(plan_limits), deliver_key=key if deliver else None, shared_email=shared_email
    )
    return account, key


def limits_of(store: AccountStore, account: Account, *, plans: PlanCatalog | None = None) -> Limits:
    """The limits in force for `account` under its plan (looked up in `plans`, default one over `store`)."""
    return account.limits_under((plans or PlanCatalog(store)).get(account.plan))


def change_account(
    store: AccountStore, account: Account, *, plans: PlanCatalog | None = None, now: float | None = None
) -> None:
    """Store `account`'s plan, status, overrides and customer with the limits they give, this UTC month.

    :raises UnknownPlan: its plan does not exist.
    :raises NoSuchAccount: there is no such account.
    """
    period = month_period(utc(int((time.time() if now is None else now) * MICROS)))
    store.update_account(account, limits_of(store, account, plans=plans), period=period)


def ensure_key(store: AccountStore, *, key: str, email: str, plan: str, quota: int | None = None) -> None:
    """Make sure `key` exists, active, on `plan` with `quota` (the local dev key, of either format); idempotent."""
    PlanCatalog(store).get(plan)
    existing = store.get_account_by_key(hash_key(key))
    if existing is None:
        create_key(store, email=email, plan=plan, quota=quota, key=key, earlier_format=True)
        return
    wanted = replace(existing, plan=plan, status="active", quota_override=quota)
    if wanted != existing:
        change_account(store, wanted)
