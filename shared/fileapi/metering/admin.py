"""Administrative account operations (key creation), used by the CLI and the local runner."""

from __future__ import annotations

import uuid
from dataclasses import replace

from fileapi.metering.accounts import Account
from fileapi.metering.keys import generate_key, hash_key, is_well_formed
from fileapi.metering.plans import get_plan
from fileapi.metering.store import MeteringStore


def create_key(
    store: MeteringStore,
    *,
    email: str,
    plan: str,
    quota: int | None = None,
    key: str | None = None,
    status: str = "active",
    customer_id: str | None = None,
) -> str:
    """Create an account holding a new key and return the key.

    :param quota: monthly quota override (None: the plan's).
    :param key: use this key instead of a random one (it must look like `sk_live_...`).
    :raises ValueError: unknown plan, quota < 0, or a malformed key.
    :raises AccountExists: the e-mail address or the key is taken.
    """
    get_plan(plan)
    if quota is not None and quota < 0:
        raise ValueError(f"quota must be >= 0, not {quota}")
    key = key or generate_key()
    if not is_well_formed(key):
        raise ValueError("a key is 'sk_live_' followed by 32 to 128 characters of A-Z a-z 0-9 - _")
    account = Account(
        account_id=uuid.uuid4().hex,
        email=email,
        plan=plan,
        status=status,
        key_hash=hash_key(key),
        quota_override=quota,
        customer_id=customer_id,
    )
    store.create_account(account)
    return key


def ensure_key(store: MeteringStore, *, key: str, email: str, plan: str, quota: int | None = None) -> None:
    """Make sure `key` exists, active, on `plan` with `quota` (the local dev key); idempotent."""
    get_plan(plan)
    existing = store.get_account_by_key(hash_key(key))
    if existing is None:
        create_key(store, email=email, plan=plan, quota=quota, key=key)
        return
    wanted = replace(existing, plan=plan, status="active", quota_override=quota)
    if wanted != existing:
        store.update_account(wanted)
