"""In-memory AdmissionStore and AccountStore: the same contracts as the DynamoDB stores, in one
process, under one lock. The unit tests use them; the behavioural suite runs against both."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from fileapi.metering.accounts import Account, Limits
from fileapi.metering.legacy_keys import prefix_of, prefixes_of
from fileapi.metering.plans import Plan
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.resharding import Action, layout
from fileapi.metering.state import NO_DAYS, NO_PERIOD, MeterState, request_tag, settle_target
from fileapi.metering.storage import (
    AccountExists,
    AccountStore,
    AdmissionStore,
    Attempt,
    BucketCase,
    BucketEmpty,
    CodeRejected,
    KeyChanged,
    NoSuchAccount,
    PendingDelivery,
    RecoveryCode,
    Refused,
    Stores,
)


@dataclass
class MemoryTable:
    """What the in-memory stores share, as one DynamoDB table would hold it."""

    accounts: dict[str, Account] = field(default_factory=dict)
    meters: dict[tuple[str, int], MeterState] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    emails: dict[str, list[str]] = field(default_factory=dict)  # address -> account ids, the first first
    customers: dict[str, str] = field(default_factory=dict)
    plans: dict[str, Plan] = field(default_factory=dict)
    codes: dict[tuple[str, str], RecoveryCode] = field(default_factory=dict)  # (address, code hash)
    deliveries: dict[str, PendingDelivery] = field(default_factory=dict)
    delivered: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    throttles: dict[str, int] = field(default_factory=dict)
    legacy_keys: set[bytes] | None = None  # the set of earlier-format keys, once sealed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def shards_of(self, account_id: str) -> list[MeterState]:
        first = self.meters.get((account_id, 0))
        if first is None:
            return []
        return [self.meters[(account_id, shard)] for shard in range(first.shards)]


def fresh_state(account: Account, limits: Limits, shard: int) -> MeterState:
    """Admission item `shard` of a new account: full bucket, no month started."""
    share = limits.quota_share(shard)
    return MeterState(
        account_id=account.account_id,
        key_hash=account.key_hash,
        status=account.status,
        plan=account.plan,
        quota=share,
        interval_us=limits.shard_interval_us,
        burst=limits.shard_burst,
        tat_us=0,
        period=NO_PERIOD,
        used=0,
        shard=shard,
        shards=limits.shards,
        base_quota=share,
        plan_quota=limits.quota_monthly,
    )


class MemoryAdmissionStore(AdmissionStore):
    def __init__(self, table: MemoryTable) -> None:
        self.table = table

    def find_account_id(self, key_hash: str) -> str | None:
        with self.table.lock:
            return self.table.keys.get(key_hash)

    def legacy_key_prefixes(self) -> frozenset[bytes] | None:
        with self.table.lock:
            return None if self.table.legacy_keys is None else frozenset(self.table.legacy_keys)

    def admit(self, attempt: Attempt) -> MeterState:
        with self.table.lock:
            state = self.table.meters.get((attempt.account_id, attempt.shard))
            if state is None or not _holds(state, attempt):
                raise Refused(state)
            tat = attempt.new_tat_if_idle if attempt.case is BucketCase.IDLE else state.tat_us + attempt.interval_us
            first = 1 if attempt.reserve else 0
            if attempt.new_month:
                started = _start_month(state, attempt.period, used=first, forgiven=0, days=NO_DAYS)
                updated = replace(started, quota=state.base_quota)
            else:
                updated = replace(state, used=state.used + first)
            updated = replace(updated, days=_add_day(updated.days, attempt.day, first))
            slot, tag = attempt.tag
            recent = list(updated.recent)
            recent[slot] = tag
            updated = replace(updated, tat_us=tat, recent=tuple(recent))
            self.table.meters[(attempt.account_id, attempt.shard)] = updated
            return updated

    def refund(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._settle((account_id, shard), period, request_id, day, counter="used", step=-1, tag="last_refund")

    def forgive(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._settle(
            (account_id, shard), period, request_id, day, counter="forgiven", step=1, tag="last_forgiven"
        )

    def _settle(
        self, key: tuple[str, int], period: str, request_id: str, day: int, *, counter: str, step: int, tag: str
    ) -> MeterState | None:
        """One tagged change of a month's counter and day, where settle_target says (as DynamoAdmissionStore does)."""
        with self.table.lock:
            state = self.table.meters.get(key)
            if state is None:
                return None
            marker = request_tag(request_id)[1]
            if getattr(state, tag) == marker:
                return state
            target = settle_target(state, period, day, refund=counter == "used")
            if target is None:
                return None
            name = ("prev_" if target.closed else "") + counter
            updated = replace(state, **{name: getattr(state, name) + step, tag: marker})
            if target.day is not None:
                updated = replace(updated, days=_add_day(updated.days, target.day, -1))
            self.table.meters[key] = updated
            return updated

    def hold(self, account_id: str, *, shard: int = 0, by_us: int, now_us: int) -> MeterState | None:
        with self.table.lock:
            state = self.table.meters.get((account_id, shard))
            if state is None:
                return None
            held = replace(state, tat_us=max(state.tat_us, now_us) + by_us)
            self.table.meters[(account_id, shard)] = held
            return held

    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        with self.table.lock:
            return self.table.meters.get((account_id, shard))

    def read_shards(self, account_id: str) -> list[MeterState]:
        with self.table.lock:
            return self.table.shards_of(account_id)

    def move_quota(self, source: MeterState, target: int, units: int) -> bool:
        with self.table.lock:
            current = self.table.meters.get((source.account_id, source.shard))
            receiver = self.table.meters.get((source.account_id, target))
            if current is None or receiver is None:
                return False
            if current.period != source.period or current.quota != source.quota or current.used > source.quota - units:
                return False
            if receiver.period != source.period:
                return False
            self.table.meters[(source.account_id, source.shard)] = replace(current, quota=current.quota - units)
            self.table.meters[(source.account_id, target)] = replace(receiver, quota=receiver.quota + units)
            return True


def _start_month(state: MeterState, period: str, *, used: int, forgiven: int, days: tuple[int, ...]) -> MeterState:
    """`state` with `period` started (the closed month's counts kept as prev_*; its days dropped)."""
    return replace(
        state,
        prev_period=state.period,
        prev_used=state.used,
        prev_forgiven=state.forgiven,
        period=period,
        used=used,
        forgiven=forgiven,
        days=days,
    )


def _add_day(days: tuple[int, ...], day: int, count: int) -> tuple[int, ...]:
    """`days` with `count` added to day `day` (1-31)."""
    return (*days[: day - 1], days[day - 1] + count, *days[day:])


def _holds(state: MeterState, attempt: Attempt) -> bool:
    """The admission condition of `attempt` on `state` (see AdmissionStore.admit)."""
    bucket = attempt.bucket
    if attempt.case is BucketCase.IDLE:
        bucket_ok = state.tat_us <= bucket.now_us
    else:
        bucket_ok = bucket.now_us <= state.tat_us <= bucket.ceiling_us
    if attempt.new_month:
        month_ok = state.period < attempt.period and (not attempt.reserve or state.quota > 0)
    else:
        month_ok = state.period == attempt.period and (not attempt.reserve or state.used < state.quota)
    return (
        state.key_hash == attempt.key_hash
        and state.is_active
        and state.interval_us == attempt.interval_us
        and state.burst == attempt.burst
        and bucket_ok
        and month_ok
    )


class MemoryAccountStore(AccountStore):
    def __init__(self, table: MemoryTable) -> None:
        self.table = table

    def create_account(
        self, account: Account, limits: Limits, *, deliver_key: str | None = None, shared_email: bool = False
    ) -> None:
        with self.table.lock:
            email = account.email.lower()
            if (email in self.table.emails and not shared_email) or account.key_hash in self.table.keys:
                raise AccountExists(f"an account for {account.email} or this key exists")
            if account.customer_id and account.customer_id in self.table.customers:
                raise AccountExists(f"an account for customer {account.customer_id} exists")
            stored = replace(account, email=email)
            self.table.accounts[account.account_id] = stored
            for shard in range(limits.shards):
                self.table.meters[(account.account_id, shard)] = fresh_state(stored, limits, shard)
            self.table.keys[account.key_hash] = account.account_id
            self.table.emails.setdefault(email, []).append(account.account_id)
            if account.customer_id:
                self.table.customers[account.customer_id] = account.account_id
            if deliver_key is not None:
                delivery = PendingDelivery(account.account_id, email, account.plan, deliver_key)
                self.table.deliveries[account.account_id] = delivery

    def get_account(self, account_id: str) -> Account | None:
        with self.table.lock:
            return self.table.accounts.get(account_id)

    def get_account_by_key(self, key_hash: str) -> Account | None:
        return self._linked(self.table.keys, key_hash)

    def get_account_by_email(self, email: str) -> Account | None:
        accounts = self.get_accounts_by_email(email)
        return accounts[0] if accounts else None

    def get_accounts_by_email(self, email: str) -> list[Account]:
        with self.table.lock:
            ids = self.table.emails.get(email.lower(), [])
            return [self.table.accounts[account_id] for account_id in ids if account_id in self.table.accounts]

    def get_account_by_customer(self, customer_id: str) -> Account | None:
        return self._linked(self.table.customers, customer_id)

    def update_account(self, account: Account, limits: Limits, *, period: str) -> None:
        with self.table.lock:
            current = self.table.accounts.get(account.account_id)
            if current is None:
                raise NoSuchAccount(f"no account {account.account_id}")
            updated = replace(account, key_hash=current.key_hash, email=current.email)
            self.table.accounts[account.account_id] = updated
            for change in layout(self.table.shards_of(account.account_id), limits, period):
                key = (account.account_id, change.shard)
                if change.action is Action.REMOVE:
                    del self.table.meters[key]
                    continue
                seen = change.seen or replace(fresh_state(updated, limits, change.shard), period=period)
                state = self.table.meters.get(key, seen)
                if change.action is Action.START:
                    state = _start_month(
                        state, period, used=change.add_used, forgiven=change.add_forgiven, days=change.add_days
                    )
                else:
                    days = tuple(mine + theirs for mine, theirs in zip(state.days, change.add_days, strict=True))
                    state = replace(
                        state,
                        used=state.used + change.add_used,
                        forgiven=state.forgiven + change.add_forgiven,
                        days=days,
                    )
                self.table.meters[key] = replace(
                    state,
                    status=updated.status,
                    plan=updated.plan,
                    quota=change.quota,
                    base_quota=change.base_quota,
                    plan_quota=limits.quota_monthly,
                    interval_us=limits.shard_interval_us,
                    burst=limits.shard_burst,
                    shards=limits.shards,
                )
            if account.customer_id:
                self.table.customers[account.customer_id] = account.account_id

    def list_accounts(self, *, limit: int = 1000) -> list[Account]:
        with self.table.lock:
            return list(self.table.accounts.values())[:limit]

    def replace_key(self, account: Account, new_key_hash: str) -> Account:
        with self.table.lock:
            current = self.table.accounts.get(account.account_id)
            if current is None or current.key_hash != account.key_hash or new_key_hash in self.table.keys:
                raise KeyChanged("the account's key changed meanwhile")
            rotated = replace(current, key_hash=new_key_hash)
            self.table.accounts[account.account_id] = rotated
            for state in self.table.shards_of(account.account_id):
                self.table.meters[(account.account_id, state.shard)] = replace(state, key_hash=new_key_hash)
            del self.table.keys[account.key_hash]
            self.table.keys[new_key_hash] = account.account_id
            if self.table.legacy_keys is not None:
                self.table.legacy_keys.discard(prefix_of(account.key_hash))
            return replace(account, key_hash=new_key_hash)

    def seal_legacy_keys(self) -> int | None:
        with self.table.lock:
            if self.table.legacy_keys is not None:
                return None
            self.table.legacy_keys = set(prefixes_of(self.table.keys))
            return len(self.table.legacy_keys)

    def pending_delivery(self, account_id: str) -> PendingDelivery | None:
        with self.table.lock:
            return self.table.deliveries.get(account_id)

    def mark_delivered(self, account_id: str) -> None:
        with self.table.lock:
            if self.table.deliveries.pop(account_id, None) is not None:
                self.table.delivered.add(account_id)

    def note_delivery_failure(self, account_id: str) -> int:
        with self.table.lock:
            delivery = self.table.deliveries.get(account_id)
            if delivery is None:
                return 0
            self.table.deliveries[account_id] = replace(delivery, attempts=delivery.attempts + 1)
            return delivery.attempts + 1

    def list_pending_deliveries(self, *, limit: int = 1000) -> list[PendingDelivery]:
        with self.table.lock:
            return list(self.table.deliveries.values())[:limit]

    def add_recovery_code(self, email: str, code: RecoveryCode, *, expires_at: int) -> None:
        with self.table.lock:
            self.table.codes[(email.lower(), code.code_hash)] = code

    def recovery_codes(self, email: str) -> list[RecoveryCode]:
        with self.table.lock:
            return [code for (address, _), code in self.table.codes.items() if address == email.lower()]

    def use_recovery_code(self, email: str, code_hash: str, *, now: int) -> None:
        with self.table.lock:
            code = self.table.codes.get((email.lower(), code_hash))
            if code is None or code.used or code.valid_until <= now:
                raise CodeRejected("wrong, expired or used code")
            self.table.codes[(email.lower(), code_hash)] = replace(code, used=True)

    def claim_event(self, event_id: str, *, expires_at: int) -> bool:
        with self.table.lock:
            if event_id in self.table.events:
                return False
            self.table.events.add(event_id)
            return True

    def release_event(self, event_id: str) -> None:
        with self.table.lock:
            self.table.events.discard(event_id)

    def put_plan(self, plan: Plan) -> None:
        with self.table.lock:
            self.table.plans[plan.name] = plan

    def get_plan(self, name: str) -> Plan | None:
        with self.table.lock:
            return self.table.plans.get(name)

    def list_plans(self) -> list[Plan]:
        with self.table.lock:
            return sorted(self.table.plans.values(), key=lambda plan: plan.name)

    def throttle(self, subject: str, bucket: Bucket, *, expires_at: int) -> int:
        with self.table.lock:
            tat = self.table.throttles.get(subject, 0)
            if not bucket.admits(tat):
                raise BucketEmpty(tat)
            self.table.throttles[subject] = bucket.next_tat(tat)
            return self.table.throttles[subject]

    def _linked(self, index: dict[str, str], value: str) -> Account | None:
        with self.table.lock:
            account_id = index.get(value)
            return None if account_id is None else self.table.accounts.get(account_id)


def memory_stores() -> Stores:
    """A fresh in-memory table and its two stores."""
    table = MemoryTable()
    return Stores(admission=MemoryAdmissionStore(table), accounts=MemoryAccountStore(table))
