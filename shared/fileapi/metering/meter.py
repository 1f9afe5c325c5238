"""Metering in one pass: authenticate and admit in one conditional write, refund a failure.

A warm metered request costs one round trip and one write: the process knows the key's account and
the limits it saw last; the write checks that the key is still the account's active key, that the
subscription is active, takes a rate token (GCRA) and reserves one unit of the month's quota. A
request that then fails gets its unit back with one more write (only successes count). A failed
condition brings back the item as it was, which says why without another read: 401, 403, 429
rate_limited with an exact Retry-After, 429 quota_exceeded, a new month (started in a second write),
or limits that changed (retried with the new ones). Refusals the process already knows the answer to
are given from memory (`fileapi.metering.cache`).

Faults are settled in the customer's favour without breaking the hard cap: a throttled write did not
apply and is retried; a write whose reply was lost is never retried blindly: it is read back (a tag of
the request id is written with it), and when that cannot prove it applied, the answer is 503 and its
unit is forgiven: not charged, and not given back either (giving it back could let one request more
than the quota through, if the write had not applied after all). Every such outcome is reported
through `on_fault`, so the possible undercount is bounded and visible.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import TypeVar

from fileapi.errors import QuotaExceeded, RateLimited, ServiceUnavailable, SubscriptionInactive, Unauthorized
from fileapi.metering.cache import INACTIVE_SECONDS, QUOTA_RECHECK_SECONDS, KeyCache, KeyEntry
from fileapi.metering.headers import KeyView, bucket_view
from fileapi.metering.keys import hash_key, parse_bearer
from fileapi.metering.months import MICROS, iso_millis, month_period, next_month_start, seconds_to_next_month, utc
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.state import MeterState
from fileapi.metering.store import AdmissionStore, Ambiguous, Attempt, BucketCase, Refused, StoreUnavailable

_T = TypeVar("_T")
# Attempts of one admission: a stale cache, a turned month and a wrong bucket case each cost one. A hot key
# whose store round trip is longer than its interval can see its bucket case change under every write (CI saw
# a 503 from 16 requests in flight on one item through moto's one-at-a-time server); a write that lost such a
# race makes the next guess BUSY (see `_attempt`), and this bound only stops a store that never agrees (with
# the pause below, 4 clients on a Business key through the local endpoint needed at most 5).
MAX_ATTEMPTS = 16
# From the second refused write of one admission on, the next waits a random part of the key's interval (at
# most this long): a request whose writes kept landing just behind another process's, in the same rhythm,
# lost every attempt (seen: IDLE refused 1.6 ms behind a competitor's write, BUSY refused 6 ms after the bucket
# had gone idle again, 18 times over); a random pause breaks that rhythm.
MAX_RETRY_PAUSE_US = 5_000
SETTLE_ATTEMPTS = 5
# After a lost admission reply, the read-back and the refund together take at most about this long.
SETTLE_SECONDS = 1.5


class Fault(Enum):
    """Store faults met on the metered path, reported as metrics (MeteringFaults by kind)."""

    # A lost admission reply, read back: it had applied (exact; the request went on).
    ADMISSION_REPLY_LOST_APPLIED = "admission_reply_lost_applied"
    # A lost admission reply that could not be proven applied: answered 503 and its unit forgiven (not
    # charged, not given back). If it had not applied, one request less is charged than delivered.
    ADMISSION_OUTCOME_UNKNOWN = "admission_outcome_unknown"
    # A lost reply of a self-service admission (no unit reserved): answered 503; at most one extra rate token.
    TOKEN_OUTCOME_UNKNOWN = "token_outcome_unknown"  # noqa: S105 (a rate token, not a secret)
    # A refund whose reply was lost and that could not be proven applied: forgiven instead of refunded
    # again (a second refund could free a unit a delivered request holds). One less charged if it had applied.
    REFUND_OUTCOME_UNKNOWN = "refund_outcome_unknown"
    # A forgiveness whose reply was lost, retried: at most one unit forgiven twice (one less charged).
    FORGIVE_REPLY_LOST = "forgive_reply_lost"
    # A refund or forgiveness that could not be written at all: one failed request stays charged.
    SETTLE_FAILED = "settle_failed"


# Faults after which the charged count may be below delivered successes by one each.
UNDERCOUNT_FAULTS = frozenset({Fault.ADMISSION_OUTCOME_UNKNOWN, Fault.REFUND_OUTCOME_UNKNOWN, Fault.FORGIVE_REPLY_LOST})


@dataclass(frozen=True)
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

    @property
    def shard(self) -> int:
        return self.state.shard

    @property
    def quota_remaining(self) -> int:
        return self.view.quota_remaining

    @property
    def rate_remaining(self) -> int:
        return self.view.remaining

    def headers(self) -> dict[str, str]:
        """X-Quota-Remaining and the RateLimit-* headers of the answer."""
        return self.view.headers()


@dataclass(frozen=True)
class UsageReport:
    """The contract's Usage resource."""

    plan: str
    quota_monthly: int
    used_this_month: int
    remaining: int
    resets_at: str
    status: str


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
        self.clock = clock
        self.sleep = sleep
        self.upgrade_url = upgrade_url
        self.on_fault = on_fault
        self.cache = cache or KeyCache()
        self.faults: Counter[Fault] = Counter()

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
        key_hash = hash_key(parse_bearer(authorization))
        now_us = self.clock()
        entry = self._entry(key_hash, now_us)
        period = month_period(utc(now_us))
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
            state = entry.states.get(shard) or _unseen(entry.states[0], shard)
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
                admitted = self._guarded(partial(self.store.admit, attempt))
            except Refused as refused:
                # Another request took a token while this one's IDLE write was under way: the key is hot, and
                # one more will likely land before the next write; guess BUSY (a wrong guess costs one write).
                raced = attempt.case is BucketCase.IDLE and _took_token_since(refused.state, attempt)
                shard = self._diagnose(refused.state, attempt, entry, key_hash)
                continue
            except Ambiguous:
                admitted = self._settle_unknown(attempt, started)
            self._learn(entry, admitted)
            entry.quota_dry.pop(admitted.shard, None)
            view = self._view(entry, now_us, admitted.period if admitted.period > period else period)
            return Admission(
                entry.account_id, key_hash, admitted, attempt.bucket, attempt.period, counted, request_id, view
            )
        raise ServiceUnavailable("the account's usage kept changing under concurrent requests; retry")

    def refund(self, admission: Admission) -> Admission:
        """Give back the unit a failed request reserved; returns the admission as it stands after it."""
        if not admission.counted:
            return admission
        after = self._refund_unit(admission.account_id, admission.period, admission.request_id, admission.shard)
        state = after or replace(admission.state, used=max(0, admission.state.used - 1))
        entry = self.cache.get(admission.key_hash)
        view = admission.view
        if entry is not None and after is not None:
            self._learn(entry, after)
            entry.quota_dry.pop(after.shard, None)  # the unit given back can be used again
            view = self._view(entry, admission.bucket.now_us, admission.period)
        elif after is not None:
            view = replace(view, quota_remaining=view.quota_remaining + 1)
        return replace(admission, state=state, view=view, refunded=True)

    def refund_charge(self, account_id: str, period: str, request_id: str, *, shard: int = 0) -> MeterState | None:
        """Give back the unit of a request admitted in another process (an operation that failed or was
        cancelled after its 202): the same write and fault handling as `refund`; None when it could not be
        written or there was nothing to refund. Repeating it for the same `request_id` changes nothing more."""
        return self._refund_unit(account_id, period, request_id, shard)

    def usage(self, admission: Admission) -> UsageReport:
        """The contract's Usage resource of the admitted request's account, this UTC month (summed over the
        key's shards, read afresh when there are several)."""
        states = [admission.state]
        if admission.state.shards > 1:
            states = self._guarded(lambda: self.store.read_shards(admission.account_id)) or states
        period = admission.period
        quota = sum(state.quota if state.period == period else state.base_quota for state in states)
        used = sum(state.used_in(period) for state in states)
        return UsageReport(
            plan=admission.state.plan,
            quota_monthly=sum(state.base_quota for state in states) if len(states) > 1 else quota,
            used_this_month=sum(state.counted_in(period) for state in states),
            remaining=max(0, quota - used),
            resets_at=iso_millis(next_month_start(utc(admission.bucket.now_us))),
            status=admission.state.status,
        )

    def account_changed(self, account_id: str) -> None:
        """Forget what this process remembers of the account's keys (its plan or status changed here)."""
        self.cache.drop_account(account_id)

    # steps

    def _entry(self, key_hash: str, now_us: int) -> KeyEntry:
        if self.cache.is_unknown(key_hash, now_us):
            raise Unauthorized("invalid API key")
        entry = self.cache.get(key_hash)
        if entry is not None:
            return entry
        account_id = self._guarded(lambda: self.store.find_account_id(key_hash))
        if account_id is None:
            raise self._unknown_key(key_hash, now_us)
        return self.cache.add(key_hash, account_id)

    def _know_first(self, entry: KeyEntry, key_hash: str, now_us: int) -> None:
        """Read the key's first item when this process does not know it (a new key, or one laid out again)."""
        if 0 in entry.states:
            return
        first = self._guarded(lambda: self.store.read(entry.account_id))
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
        """The next shard to try, in turn, among those not known to refuse; when every shard is known to
        refuse, the refusal: rate_limited while any is only out of tokens, else quota_exceeded."""
        open_shards = [
            shard
            for shard in range(entry.shards)
            if not entry.blocked(shard, now_us) and not (counted and entry.dry(shard, period, now_us))
        ]
        if open_shards:
            chosen = open_shards[entry.cursor % len(open_shards)]
            if advance:
                entry.cursor += 1
            return chosen
        movable = self._movable(entry, now_us, period)
        if movable is not None:
            if not advance:
                return 0  # not known to be refused: a shard's quota can move to one that has tokens
            taker = self._shift(entry, *movable, period=period)
            if taker is not None:
                return taker
        blocked = [entry.rate_blocked_until_us[shard] for shard in range(entry.shards) if entry.blocked(shard, now_us)]
        view = self._view(entry, now_us, period)
        if blocked:
            raise self._rate_limited(entry.states[0], view, wait_us=min(blocked) - now_us)
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
        # Judged at this moment, not when the attempt was made: a process held up between its clock reading and
        # the write (a busy machine) would otherwise call a bucket empty that has tokens by now.
        bucket = Bucket.of(max(now_us, self.clock()), interval_us=old.interval_us, burst=old.burst)
        if not bucket.admits(old.tat_us):
            entry.rate_blocked_until_us[old.shard] = bucket.available_at_us(old.tat_us)
            return None
        period = max(attempt.period, old.period)
        if attempt.reserve and old.remaining_in(period) == 0:
            if self._rebalance(entry, old, period):
                return old.shard
            entry.quota_dry[old.shard] = period
            entry.quota_recheck_at_us = now_us + QUOTA_RECHECK_SECONDS * MICROS
            return None
        return old.shard  # another month or another bucket case than the attempt assumed: try it again

    def _rebalance(self, entry: KeyEntry, dry: MeterState, period: str) -> bool:
        """Move half the unused quota of the shard this process believes has most to the dry one `dry`;
        True when moved (the move checks the donor's counts, so the hard cap holds whatever was believed)."""
        donors = [
            state
            for shard, state in entry.states.items()
            if shard != dry.shard and state.period == period and state.remaining_in(period) >= 2
        ]
        if not donors or dry.period != period:
            return False
        donor = max(donors, key=lambda state: state.remaining_in(period))
        units = donor.remaining_in(period) // 2
        if not self._guarded(lambda: self.store.move_quota(donor, dry.shard, units)):
            return False
        entry.states[donor.shard] = replace(donor, quota=donor.quota - units)
        entry.states[dry.shard] = replace(dry, quota=dry.quota + units)
        return True

    @staticmethod
    def _movable(entry: KeyEntry, now_us: int, period: str) -> tuple[MeterState, int] | None:
        """A shard out of tokens that has quota left, and a shard out of quota that has tokens: the key as a
        whole has both, so its quota should follow its tokens (None when there is no such pair)."""
        donors = [
            state
            for shard, state in entry.states.items()
            if entry.blocked(shard, now_us) and state.period == period and state.remaining_in(period) > 0
        ]
        takers = [
            shard
            for shard in range(entry.shards)
            if entry.dry(shard, period, now_us) and not entry.blocked(shard, now_us) and shard in entry.states
        ]
        if not donors or not takers:
            return None
        return max(donors, key=lambda state: state.remaining_in(period)), takers[0]

    def _shift(self, entry: KeyEntry, donor: MeterState, taker: int, *, period: str) -> int | None:
        """Move half (at least one) of `donor`'s unused quota to shard `taker`; the taker when it moved."""
        units = max(1, donor.remaining_in(period) // 2)
        if not self._guarded(lambda: self.store.move_quota(donor, taker, units)):
            entry.rate_blocked_until_us.pop(donor.shard, None)  # what was believed is stale: ask again
            return None
        entry.states[donor.shard] = replace(donor, quota=donor.quota - units)
        entry.states[taker] = replace(entry.states[taker], quota=entry.states[taker].quota + units)
        entry.quota_dry.pop(taker, None)
        return taker

    def _view(self, entry: KeyEntry, now_us: int, period: str) -> KeyView:
        """The headers' figures for the key: exact on one item; summed over what this process knows of each
        shard (a shard it has not seen counted as full) on several."""
        first = entry.states[0]
        bucket = Bucket.of(now_us, interval_us=first.interval_us, burst=first.burst)
        if entry.shards == 1:
            return bucket_view(bucket, first.tat_us, first.remaining_in(period))
        states = [entry.states.get(shard) for shard in range(entry.shards)]
        return KeyView(
            limit=first.burst * entry.shards,
            remaining=sum(bucket.remaining_after(state.tat_us) if state else first.burst for state in states),
            reset_seconds=max(bucket.reset_seconds(state.tat_us) for state in states if state),
            window_seconds=bucket.window_seconds,
            quota_remaining=sum(
                state.remaining_in(period) if state and state.period >= period else first.base_quota for state in states
            ),
        )

    def _settle_unknown(self, attempt: Attempt, started: float) -> MeterState:
        """An admission write whose reply was lost: go on if it provably applied, else charge nothing and 503.

        Its unit is forgiven, not refunded: if the write had not applied, a refund would take back a
        unit that another, delivered request holds, and let one request more than the quota through.
        `started` (monotonic seconds) bounds the time spent here: the answer comes within SETTLE_SECONDS.
        """
        reachable = True
        try:
            current = self.store.read(attempt.account_id, shard=attempt.shard)
        except StoreUnavailable:
            current, reachable = None, False
        if current is not None and current.admitted(attempt.request_id):
            self._report(Fault.ADMISSION_REPLY_LOST_APPLIED)
            return current
        if attempt.reserve:
            self._report(Fault.ADMISSION_OUTCOME_UNKNOWN)
            # A store that answers is worth every attempt (a forgiveness not written is a 503 charged); one
            # that does not answer gets until SETTLE_SECONDS, so that the 503 comes quickly.
            until = None if reachable else started + SETTLE_SECONDS
            self._forgive(attempt.account_id, attempt.period, attempt.request_id, attempt.shard, until=until)
        else:
            self._report(Fault.TOKEN_OUTCOME_UNKNOWN)
        raise ServiceUnavailable(
            "the account store did not confirm this request; nothing was charged and no work was done: retry"
        )

    def _refund_unit(self, account_id: str, period: str, request_id: str, shard: int) -> MeterState | None:
        """Refund one unit of a failed request; a refund of unknown outcome is forgiven instead."""
        for _ in range(SETTLE_ATTEMPTS):
            try:
                return self.store.refund(account_id, period, request_id, shard=shard)
            except StoreUnavailable:
                continue  # not applied: try again
            except Ambiguous:
                try:
                    current = self.store.read(account_id, shard=shard)
                except StoreUnavailable:
                    current = None
                if current is not None and current.refunded(request_id):
                    return current
                self._report(Fault.REFUND_OUTCOME_UNKNOWN)
                return self._forgive(account_id, period, request_id, shard)
        self._report(Fault.SETTLE_FAILED)
        return None

    def _forgive(
        self, account_id: str, period: str, request_id: str, shard: int, *, until: float | None = None
    ) -> MeterState | None:
        """Forgive one unit (tagged, so a retry after a lost reply rarely forgives twice), up to
        SETTLE_ATTEMPTS times or until the monotonic instant `until`."""
        for _ in range(SETTLE_ATTEMPTS):
            try:
                return self.store.forgive(account_id, period, request_id, shard=shard)
            except Ambiguous:
                self._report(Fault.FORGIVE_REPLY_LOST)
            except StoreUnavailable:
                pass
            if until is not None and time.monotonic() >= until:
                break
        self._report(Fault.SETTLE_FAILED)
        return None

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

    def _report(self, fault: Fault) -> None:
        self.faults[fault] += 1
        if self.on_fault is not None:
            self.on_fault(fault)

    @staticmethod
    def _guarded(operation: Callable[[], _T]) -> _T:
        return guarded(operation)


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
    """The admission write to try, given the item as last seen. The bucket case is guessed from it: BUSY when
    its TAT is still ahead of now, or, for a sharded key, when it was busy when seen (the other instances that
    share a busy shard keep it busy; measured by the load model: 20 instances on 39 shards guessed wrong
    1 time in 60 this way, against 1 in 2.5 from the TAT alone), and when the last attempt `raced` another
    request (its IDLE write found a token taken after its instant). A wrong guess costs one refused write,
    which brings the item as it is."""
    period = max(period, state.period)  # another process's clock may already be in the next month
    return Attempt(
        account_id=state.account_id,
        key_hash=key_hash,
        interval_us=state.interval_us,
        burst=state.burst,
        period=period,
        bucket=Bucket.of(now_us, interval_us=state.interval_us, burst=state.burst),
        case=BucketCase.BUSY
        if state.tat_us > now_us or raced or (state.shards > 1 and busy_when_seen)
        else BucketCase.IDLE,
        reserve=counted,
        new_month=state.period < period,
        request_id=request_id,
        shard=state.shard,
    )


def _took_token_since(old: MeterState | None, attempt: Attempt) -> bool:
    """Whether the item refusing `attempt` had a token taken after the attempt's instant."""
    return old is not None and old.tat_us > attempt.bucket.now_us


def _unseen(first: MeterState, shard: int) -> MeterState:
    """A guess at shard `shard` from the first shard's item (the same limits and month, a full bucket): a
    wrong guess costs one refused write, which brings the item as it is."""
    return replace(first, shard=shard, tat_us=0, used=0, forgiven=0, quota=first.base_quota)


def guarded(operation: Callable[[], _T]) -> _T:
    """Run a store operation; a store that cannot be reached fails the request closed (503)."""
    try:
        return operation()
    except StoreUnavailable as exc:
        raise ServiceUnavailable(
            f"the account store is unavailable ({exc}); the request was not processed or counted"
        ) from None
