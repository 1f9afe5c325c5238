"""Settling a reserved unit: refunds of failed requests, and the store faults met on the metered path.

Faults are settled in the customer's favour without breaking the hard cap: a throttled write did not
apply and is retried; a write whose reply was lost is never retried blindly: it is read back (a tag of
the request id is written with it), and when that cannot prove it applied, the answer is 503 and its
unit is forgiven: not charged, and not given back either (giving it back could let one request more
than the quota through, if the write had not applied after all). Every such outcome is reported
through `on_fault`, so the possible undercount is bounded and visible.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from enum import Enum

from fileapi.errors import ServiceUnavailable
from fileapi.metering.state import MeterState
from fileapi.metering.storage import AdmissionStore, Ambiguous, Attempt, StoreUnavailable

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


class Settler:
    """Refunds and forgiveness over an AdmissionStore, and the faults met doing them.

    :param on_fault: called with each store fault met (metrics and logs); `faults` counts them too.
    """

    def __init__(self, store: AdmissionStore, *, on_fault: Callable[[Fault], None] | None = None) -> None:
        self.store = store
        self.on_fault = on_fault
        self.faults: Counter[Fault] = Counter()

    def lost_admission(self, attempt: Attempt, started: float) -> MeterState:
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
            self.report(Fault.ADMISSION_REPLY_LOST_APPLIED)
            return current
        if attempt.reserve:
            self.report(Fault.ADMISSION_OUTCOME_UNKNOWN)
            # A store that answers is worth every attempt (a forgiveness not written is a 503 charged); one
            # whose read did not answer gets until SETTLE_SECONDS for writes that cannot reach it, so that the
            # 503 comes quickly, and a retry after each write that reached it (`forgive`).
            until = None if reachable else started + SETTLE_SECONDS
            self.forgive(
                attempt.account_id, attempt.period, attempt.request_id, attempt.shard, day=attempt.day, until=until
            )
        else:
            self.report(Fault.TOKEN_OUTCOME_UNKNOWN)
        raise ServiceUnavailable(
            "the account store did not confirm this request; nothing was charged and no work was done: retry"
        )

    def refund(self, account_id: str, period: str, request_id: str, shard: int, *, day: int) -> MeterState | None:
        """Refund one unit of a failed request, admitted in `period` on its `day` (1-31: see `Admission.day`); a
        refund of unknown outcome is forgiven instead."""
        for _ in range(SETTLE_ATTEMPTS):
            try:
                return self.store.refund(account_id, period, request_id, shard=shard, day=day)
            except StoreUnavailable:
                continue  # not applied: try again
            except Ambiguous:
                try:
                    current = self.store.read(account_id, shard=shard)
                except StoreUnavailable:
                    current = None
                if current is not None and current.refunded(request_id):
                    return current
                self.report(Fault.REFUND_OUTCOME_UNKNOWN)
                return self.forgive(account_id, period, request_id, shard, day=day)
        self.report(Fault.SETTLE_FAILED)
        return None

    def forgive(
        self, account_id: str, period: str, request_id: str, shard: int, *, day: int, until: float | None = None
    ) -> MeterState | None:
        """Forgive one unit taken in `period` on `day` (tagged, so a retry after a lost reply rarely forgives twice),
        up to SETTLE_ATTEMPTS times; past the monotonic instant `until`, only while the store takes the writes.

        A write whose reply was lost reached the store: the next attempt either applies or finds its own tag (the
        earlier one applied), so it settles the unit, and it is made whatever the time. Giving up after it would
        report a forgiveness that most likely applied as one that could not be written, and leave the customer's
        charge for a 503 unknown. Only a store that cannot be reached stops the retries at `until`.
        """
        for _ in range(SETTLE_ATTEMPTS):
            try:
                return self.store.forgive(account_id, period, request_id, shard=shard, day=day)
            except Ambiguous:
                self.report(Fault.FORGIVE_REPLY_LOST)
            except StoreUnavailable:
                if until is not None and time.monotonic() >= until:
                    break
        self.report(Fault.SETTLE_FAILED)
        return None

    def report(self, fault: Fault) -> None:
        """Count `fault` and pass it to `on_fault`."""
        self.faults[fault] += 1
        if self.on_fault is not None:
            self.on_fault(fault)
