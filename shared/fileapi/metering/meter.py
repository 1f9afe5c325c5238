"""Metering in one pass: authenticate and admit in one conditional write, refund a failure.

A warm metered request costs one round trip and one write: the process knows the key's account and
the limits it saw last; the write checks that the key is still the account's active key, that the
subscription is active, takes a rate token (GCRA) and reserves one unit of the month's quota. A
request that then fails gets its unit back with one more write (only successes count). A failed
condition brings back the item as it was, which says why without another read: 401, 403, 429
rate_limited with an exact Retry-After, 429 quota_exceeded, a new month (started in a second write),
or limits that changed (retried with the new ones). Refusals the process already knows the answer to
are given from memory (`fileapi.metering.cache`). Which of a sharded key's items a request goes to is
`fileapi.metering.placement`; refunds and lost replies are settled by `fileapi.metering.settling`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from fileapi.errors import QuotaExceeded, RateLimited, ServiceUnavailable, SubscriptionInactive, Unauthorized
from fileapi.metering import placement
from fileapi.metering.cache import INACTIVE_SECONDS, QUOTA_RECHECK_SECONDS, KeyCache, KeyEntry
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS, KeyView
from fileapi.metering.keys import hash_key, is_legacy_key, parse_bearer
from fileapi.metering.legacy_keys import LegacyKeySet
from fileapi.metering.months import (
    MICROS,
    day_of,
    iso_millis,
    next_month_start,
    period_of,
    seconds_to_next_month,
    utc,
)
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.settling import Fault, Settler
from fileapi.metering.state import MeterState
from fileapi.metering.storage import AdmissionStore, Ambiguous, Attempt, BucketCase, Refused, guarded

if TYPE_CHECKING:
    from fileapi.metering.usage import UsageReport

# Writes one admission may try (plus one per shard) before 503: a stale cache, a turned month and a wrong
# bucket case each cost one, so the bound stops only a store that never agrees (4 clients on one Business
# key through the local endpoint need at most 5).
MAX_ATTEMPTS = 16
# Keys whose hashes `Meter._presented` remembers at most (then it starts again): under 1 MB.
MAX_CHECKED_KEYS = 4_096
BEARER = "Bearer "
# From the second refused write of one admission on, each waits a random part of the key's interval, at most
# this long, so that writes landing just behind another process's fall out of its rhythm.
MAX_RETRY_PAUSE_US = 5_000


@dataclass(frozen=True, slots=True)
class Admission:
    """A request let in: its account, the item (shard) that admitted it, and what the headers say."""

    account_id: str
    key_hash: str
    state: MeterState
    bucket: Bucket
    period: str
    counted: bool
    request_id: str
    view: KeyView
    refunded: bool = False
    legacy_key: bool = False

    @property
    def shard(self) -> int:
        return self.state.shard

    @property
    def day(self) -> int:
        """The day of `period` (1-31) its unit counts on; a refund or forgiveness takes it back from that day."""
        return day_of(self.bucket.now_us, self.period)

    @property
    def quota_remaining(self) -> int:
        return self.view.quota_remaining

    @property
    def rate_remaining(self) -> int:
        return self.view.remaining

    def headers(self) -> dict[str, str]:
        """X-Quota-Remaining and the RateLimit-* headers of the answer (and Deprecation for an earlier-format key)."""
        headers = self.view.headers()
        return {**headers, **DEPRECATED_KEY_HEADERS} if self.legacy_key else headers


class Meter:
    """Metering over an AdmissionStore.

    :param clock: current time in microseconds since the epoch (injected in tests).
    :param upgrade_url: link put on quota and subscription errors, when configured.
    :param on_fault: called with each store fault met (metrics and logs); `faults` counts them too.
    :param sleep: waits that many seconds (the pause between refused writes; injected in tests).
    """

    def __init__(
        self,
        store: AdmissionStore,
        *,
        clock: Callable[[], int] = lambda: time.time_ns() // 1000,
        upgrade_url: str | None = None,
        on_fault: Callable[[Fault], None] | None = None,
        cache: KeyCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.store = store
        self.legacy_keys = LegacyKeySet(lambda: guarded(store.legacy_key_prefixes))
        self.clock = clock
        self.sleep = sleep
        self.upgrade_url = upgrade_url
        self.cache = cache or KeyCache()
        self._checked: dict[str, bool] = {}  # key hash -> of the earlier format (see `_presented`)
        self.settler = Settler(store, on_fault=on_fault)
        self.faults = self.settler.faults

    # the request path

    def admit(self, authorization: str | None, *, counted: bool, request_id: str) -> Admission:
        """Authenticate the request's key and admit it: take a rate token and, when `counted`, reserve a unit.

        A sharded key's request goes to its shards in turn, and to the next one when a shard has no token
        or no quota left; the refusals below come only when every shard refuses.

        :raises Unauthorized: no key, a malformed key, or a key no account holds (any more).
        :raises SubscriptionInactive: the account's subscription is not active.
        :raises RateLimited: the bucket is empty (Retry-After: whole seconds until it has a token).
        :raises QuotaExceeded: the month's quota is used up (Retry-After: seconds to the next month).
        :raises ServiceUnavailable: the store could not be reached, or the outcome of the write is unknown
            and nothing was charged.
        """
        started = time.monotonic()
        key_hash, legacy_key = self._presented(authorization)
        now_us = self.clock()
        entry = self._entry(key_hash, now_us, legacy_key=legacy_key)
        period = period_of(now_us)
        self._know_first(entry, key_hash, now_us)
        self._refuse_known(entry, now_us, period, counted=counted)
        shard: int | None = None
        raced = False
        for tried in range(MAX_ATTEMPTS + entry.shards):
            if tried >= 2:
                interval_us = entry.states[0].interval_us
                self.sleep(random.uniform(0, min(interval_us, MAX_RETRY_PAUSE_US)) / MICROS)  # noqa: S311 (jitter)
            now_us = self.clock()  # as late as can be: the bucket's condition is computed from it
            self._know_first(entry, key_hash, now_us)
            if shard is None:
                shard = self._pick(entry, now_us, period, counted=counted)
            state = entry.states.get(shard) or placement.unseen(entry.states[0], shard)
            busy_when_seen = state.tat_us > entry.seen_at_us.get(shard, 0) + state.interval_us
            attempt = _attempt(
                state,
                key_hash,
                now_us,
                period,
                counted=counted,
                request_id=request_id,
                busy_when_seen=busy_when_seen,
                raced=raced,
            )
            try:
                admitted = guarded(partial(self.store.admit, attempt))
            except Refused as refused:
                # Another request took a token while this one's IDLE write was under way: the key is hot, and
                # one more will likely land before the next write; guess BUSY (a wrong guess costs one write).
                raced = attempt.case is BucketCase.IDLE and _took_token_since(refused.state, attempt)
                shard = self._diagnose(refused.state, attempt, entry, key_hash)
                continue
            except Ambiguous:
                admitted = self.settler.lost_admission(attempt, started)
            self._learn(entry, admitted)
            entry.quota_dry.pop(admitted.shard, None)
            view = placement.key_view(
                entry, now_us, admitted.period if admitted.period > period else period, bucket=attempt.bucket
            )
            return Admission(
                entry.account_id,
                key_hash,
                admitted,
                attempt.bucket,
                attempt.period,
                counted,
                request_id,
                view,
                legacy_key=legacy_key,
            )
        raise ServiceUnavailable("the account's usage kept changing under concurrent requests; retry")

    def refund(self, admission: Admission) -> Admission:
        """Give back the unit a failed request reserved; returns the admission as it stands after it."""
        if not admission.counted:
            return admission
        after = self.settler.refund(
            admission.account_id, admission.period, admission.request_id, admission.shard, day=admission.day
        )
        state = after or replace(admission.state, used=max(0, admission.state.used - 1))
        entry = self.cache.get(admission.key_hash)
        view = admission.view
        if entry is not None and after is not None:
            self._learn(entry, after)
            entry.quota_dry.pop(after.shard, None)  # the unit given back can be used again
            view = placement.key_view(entry, admission.bucket.now_us, admission.period)
        elif after is not None:
            view = replace(view, quota_remaining=view.quota_remaining + 1)
        return replace(admission, state=state, view=view, refunded=True)

    def refund_admitted(
        self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int
    ) -> MeterState | None:
        """Give back the unit of a request admitted earlier, perhaps by another process: an operation that failed
        or was cancelled after its 202 (fileapi.operations), from the `day` of `period` it was admitted on. The
        same write and fault handling as `refund`: a repeat right after is a no-op (the item's `last_refund` tag),
        but the caller makes sure it asks once (the operation's record decides who settles). Returns the item
        after it; None when it could not be written or there was nothing to give back (`period` is neither the
        item's month nor the one before)."""
        return self.settler.refund(account_id, period, request_id, shard, day=day)

    def hold(self, admission: Admission, seconds: float) -> None:
        """Charge the key's rate for the `seconds` a conversion worker spent on its request before the request was
        ended for time (docs/metering.md, "Time held"): the admitting item's bucket moves forward by that long,
        so the key's next requests are refused 429 rate_limited until the bucket has refilled for it, while its
        unit of the quota is given back as for any failure.

        :param seconds: >= 0; the worker's seconds on the job, from when it got the worker to when it was killed.
        :raises ServiceUnavailable: the store could not be reached (nothing was charged).
        """
        by_us = round(max(0.0, seconds) * MICROS)
        if by_us == 0:
            return
        now_us = self.clock()
        after = guarded(
            partial(self.store.hold, admission.account_id, shard=admission.shard, by_us=by_us, now_us=now_us)
        )
        entry = self.cache.get(admission.key_hash)
        if after is None or entry is None:
            return
        self._learn(entry, after)
        bucket = Bucket.of(now_us, interval_us=after.interval_us, burst=after.burst)
        if not bucket.admits(after.tat_us):  # refused from memory until then: no write for a request that would fail
            entry.rate_blocked_until_us[after.shard] = bucket.available_at_us(after.tat_us)

    def usage(self, admission: Admission) -> UsageReport:
        """The contract's Usage resource of the admitted request's account, this UTC month (summed over the
        key's shards, read afresh when there are several), with its count per day so far."""
        from fileapi.metering.usage import usage_report  # the Account function's only: not on the request path

        states = [admission.state]
        if admission.state.shards > 1:
            states = guarded(lambda: self.store.read_shards(admission.account_id)) or states
        return usage_report(states, now_us=admission.bucket.now_us)

    def account_changed(self, account_id: str) -> None:
        """Forget what this process remembers of the account's keys (its plan or status changed here)."""
        self.cache.drop_account(account_id)

    # steps

    def _presented(self, authorization: str | None) -> tuple[str, bool]:
        """The hash of the key the Authorization header presents (`hash_key` of what `parse_bearer` returns), and
        whether it is a key of the earlier format.

        `parse_bearer`'s checks of 'Bearer <key>' read the key alone, and cost a request's admission more than the
        rest of its own work: a key's hash is remembered once its key passed them (hashes only, as the key cache
        keeps), and the key is not checked again when it comes so.

        :raises Unauthorized: as `parse_bearer`.
        """
        if authorization is not None and authorization.startswith(BEARER):
            key = authorization[len(BEARER) :]
            if key == key.strip() and key.isascii():  # a key is ASCII: anything else goes to parse_bearer's 401
                key_hash = hash_key(key)
                legacy = self._checked.get(key_hash)
                if legacy is not None:
                    return key_hash, legacy
        key = parse_bearer(authorization)
        key_hash = hash_key(key)
        legacy = is_legacy_key(key)
        if len(self._checked) >= MAX_CHECKED_KEYS:
            self._checked.clear()
        self._checked[key_hash] = legacy
        return key_hash, legacy

    def _entry(self, key_hash: str, now_us: int, *, legacy_key: bool) -> KeyEntry:
        if self.cache.is_unknown(key_hash, now_us):
            raise Unauthorized("invalid API key")
        entry = self.cache.get(key_hash)
        if entry is not None:
            return entry
        if legacy_key and not self.legacy_keys.may_exist(key_hash, now_us):
            raise self._unknown_key(key_hash, now_us)  # not in the closed set: made up, or rotated away
        account_id = guarded(lambda: self.store.find_account_id(key_hash))
        if account_id is None:
            if legacy_key:
                self.legacy_keys.found_missing()
            raise self._unknown_key(key_hash, now_us)
        return self.cache.add(key_hash, account_id)

    def _know_first(self, entry: KeyEntry, key_hash: str, now_us: int) -> None:
        """Read the key's first item when this process does not know it (a new key, or one laid out again)."""
        if 0 in entry.states:
            return
        first = guarded(lambda: self.store.read(entry.account_id))
        if first is None:
            raise self._unknown_key(key_hash, now_us)
        self._learn(entry, first)

    def _learn(self, entry: KeyEntry, state: MeterState) -> None:
        """Remember `state` as of now; a different number of shards means the key was laid out again."""
        if state.shards != entry.shards:
            entry.forget_shards(state.shards)
            entry.cursor = random.randrange(state.shards)  # noqa: S311 (spreading load, not a secret)
        entry.states[state.shard] = state
        entry.seen_at_us[state.shard] = self.clock()

    def _refuse_known(self, entry: KeyEntry, now_us: int, period: str, *, counted: bool) -> None:
        """Refuse from memory what this process already knows will be refused (no store call)."""
        if entry.inactive_until_us > now_us:
            raise self._inactive(entry.states[0])
        self._pick(entry, now_us, period, counted=counted, advance=False)

    def _pick(self, entry: KeyEntry, now_us: int, period: str, *, counted: bool, advance: bool = True) -> int:
        """The next shard to try (see `placement.pick`); when every shard is known to refuse, the refusal:
        rate_limited while any is only out of tokens, else quota_exceeded."""
        shard = placement.pick(self.store, entry, now_us, period, counted=counted, advance=advance)
        if shard is not None:
            return shard
        wait_us = placement.rate_wait_us(entry, now_us)
        view = placement.key_view(entry, now_us, period)
        if wait_us is not None:
            raise self._rate_limited(entry.states[0], view, wait_us=wait_us)
        raise self._quota_exceeded(entry.states[0], view, now_us)

    def _diagnose(self, old: MeterState | None, attempt: Attempt, entry: KeyEntry, key_hash: str) -> int | None:
        """Why an admission's condition failed: raise the refusal it means for the whole key, or remember what it
        says and return the shard to try again (None: the next one in turn)."""
        now_us = attempt.bucket.now_us
        if old is None and attempt.shard != 0:
            entry.forget_shards(entry.shards)  # that item is gone: the key was laid out on fewer items
            return None
        if old is None or old.key_hash != key_hash:
            raise self._unknown_key(key_hash, now_us)  # the account is gone, or the key was rotated away
        self._learn(entry, old)
        if not old.is_active:
            entry.inactive_until_us = now_us + INACTIVE_SECONDS * MICROS
            raise self._inactive(old)
        if (old.interval_us, old.burst, old.shards) != (attempt.interval_us, attempt.burst, entry.shards):
            return None  # the limits changed (or the key was laid out again): try with the stored ones
        # Judged now, not at the attempt's instant: a process held up between its clock reading and the write
        # must not call a bucket empty that has a token by now.
        bucket = Bucket.of(max(now_us, self.clock()), interval_us=old.interval_us, burst=old.burst)
        if not bucket.admits(old.tat_us):
            entry.rate_blocked_until_us[old.shard] = bucket.available_at_us(old.tat_us)
            return None
        period = max(attempt.period, old.period)
        if attempt.reserve and old.remaining_in(period) == 0:
            if placement.rebalance(self.store, entry, old, period):
                return old.shard
            entry.quota_dry[old.shard] = period
            entry.quota_recheck_at_us = now_us + QUOTA_RECHECK_SECONDS * MICROS
            return None
        return old.shard  # another month or another bucket case than the attempt assumed: try it again

    # refusals

    def _unknown_key(self, key_hash: str, now_us: int) -> Unauthorized:
        self.cache.mark_unknown(key_hash, now_us)
        return Unauthorized("invalid API key")

    def _inactive(self, state: MeterState) -> SubscriptionInactive:
        return SubscriptionInactive(
            f"the subscription of this key is {state.status}, not active", upgrade_url=self.upgrade_url
        )

    def _rate_limited(self, state: MeterState, view: KeyView, *, wait_us: int) -> RateLimited:
        per_second = MICROS * state.shards / state.interval_us
        return RateLimited(
            f"rate limit of {per_second:g} requests/s (burst {view.limit}) exceeded",
            retry_after_seconds=max(1, -(-wait_us // MICROS)),
            upgrade_url=self.upgrade_url,
            headers=view.headers(),
        )

    def _quota_exceeded(self, state: MeterState, view: KeyView, now_us: int) -> QuotaExceeded:
        resets = next_month_start(utc(now_us))
        return QuotaExceeded(
            f"monthly quota of {state.plan_quota} requests used up; it resets at {iso_millis(resets)}",
            retry_after_seconds=seconds_to_next_month(now_us),
            upgrade_url=self.upgrade_url,
            headers=view.headers(),
        )


def _attempt(
    state: MeterState,
    key_hash: str,
    now_us: int,
    period: str,
    *,
    counted: bool,
    request_id: str,
    busy_when_seen: bool = False,
    raced: bool = False,
) -> Attempt:
    """The admission write to try, given the item as last seen.

    The bucket case is BUSY when the TAT is still ahead of now, when the last attempt `raced` another request
    (its IDLE write found a token taken after its instant), or, for a sharded key, when the shard was busy
    when seen (the other instances on a busy shard keep it busy: 1 wrong guess in 60 in the load model);
    else IDLE. A wrong guess costs one refused write, which brings the item as it is."""
    period = max(period, state.period)  # another process's clock may already be in the next month
    busy = state.tat_us > now_us or raced or (state.shards > 1 and busy_when_seen)
    return Attempt(  # positional, in Attempt's order: every admission makes one
        state.account_id,  # account_id
        key_hash,
        state.interval_us,
        state.burst,
        period,
        Bucket.of(now_us, interval_us=state.interval_us, burst=state.burst),
        BucketCase.BUSY if busy else BucketCase.IDLE,
        counted,  # reserve
        state.period < period,  # new_month
        request_id,
        state.shard,
    )


def _took_token_since(old: MeterState | None, attempt: Attempt) -> bool:
    """Whether the item refusing `attempt` had a token taken after the attempt's instant."""
    return old is not None and old.tat_us > attempt.bucket.now_us
