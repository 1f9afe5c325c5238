"""The admission item of an account: what one conditional write checks and changes.

It lives in the account's own item (well under 1 KB, so one write unit): the key hash and status
(so that a cached key is checked on every request), the limits in force, the rate bucket's
theoretical arrival time (independent of the month), the current month with its count and its count
per day, and the closed month's final count.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fileapi.metering.accounts import ACTIVE_STATUSES

# A period before every real 'YYYY-MM': the month of an account that has not been used yet.
NO_PERIOD = "0000-00"


# Admissions write a short tag of their request id into one of RECENT_SLOTS slots (chosen by the tag), so
# that a write whose reply was lost can be read back: its tag in its slot proves it applied.
# 32 slots of 5 characters keep the item under 1 KB (one write unit) with the longest e-mail address.
RECENT_SLOTS = 32
TAG_CHARS = 5
# The count of each day of the current month is kept on the item, in the admission's own write.
DAYS = 31
NO_DAYS = (0,) * DAYS


def request_tag(request_id: str) -> tuple[int, str]:
    """The slot and the tag an admission of `request_id` writes (20 bits: two requests that meet in one
    slot have the same tag once in a million; the slot comes from other bits of the same digest)."""
    digest = hashlib.blake2b(request_id.encode(), digest_size=8).hexdigest()
    return int(digest[-4:], 16) % RECENT_SLOTS, digest[:TAG_CHARS]


@dataclass(frozen=True, slots=True)
class MeterState:
    """The admission item as read from, or written to, the store.

    :param shard: which of the key's `shards` items this is (0: the account's own item).
    :param quota: the units of the month's quota this item may admit (the whole quota, or a shard's share
        as rebalanced); `base_quota` is its share at the start of a month; `plan_quota` the key's monthly quota.
    :param interval_us: GCRA emission interval of this item's bucket: 1e6 * shards / sustained requests per second.
    :param burst: this item's bucket capacity (requests).
    :param tat_us: the bucket's theoretical arrival time, epoch microseconds (0: never used).
    :param period: the UTC month 'YYYY-MM' that `used` counts.
    :param used: units of the month's quota taken: successes, requests in flight, and requests whose
        outcome the store left unknown; the hard cap is `used < quota`.
    :param forgiven: of `used`, the units of unknown outcome that are not charged (answered 503).
    :param prev_period: the month before, whose final counts are `prev_used` and `prev_forgiven`.
    :param days: of `used - forgiven`, the units charged on each day of `period` (index 0: the 1st): an
        admission adds one to its day, and its refund or forgiveness takes it back from there (see
        `settle_target`). They add up to `used - forgiven`, but for units counted before the item kept
        days (an item of an earlier release, in the month it was upgraded): `daily_in` shows those on the 1st.
    :param recent: the tags of recent admissions, by slot (see `request_tag`).
    :param last_refund: tag of the last refund's request (a retried refund recognises itself); `last_forgiven`
        alike.
    """

    account_id: str
    key_hash: str
    status: str
    plan: str
    quota: int
    interval_us: int
    burst: int
    tat_us: int
    period: str
    used: int
    forgiven: int = 0
    shard: int = 0
    shards: int = 1
    base_quota: int = 0
    plan_quota: int = 0
    prev_period: str = NO_PERIOD
    prev_used: int = 0
    prev_forgiven: int = 0
    days: tuple[int, ...] = NO_DAYS
    recent: tuple[str, ...] = ("",) * RECENT_SLOTS
    last_refund: str = ""
    last_forgiven: str = ""

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def used_in(self, period: str) -> int:
        """Units of `period`'s quota taken (0 for a month the item has not started yet)."""
        if period == self.period:
            return self.used
        if period == self.prev_period:
            return self.prev_used
        return 0

    def counted_in(self, period: str) -> int:
        """Successful requests charged in `period`: the units taken less those forgiven."""
        if period == self.period:
            return self.used - self.forgiven
        if period == self.prev_period:
            return self.prev_used - self.prev_forgiven
        return 0

    def daily_in(self, period: str) -> tuple[int, ...]:
        """Successful requests charged on each day of `period` (DAYS figures, the 1st first), adding up to
        `counted_in(period)`: units counted before the item kept days are on the 1st."""
        if period != self.period:
            return NO_DAYS
        earlier = max(0, self.used - self.forgiven - sum(self.days))
        return (self.days[0] + earlier, *self.days[1:])

    def remaining_in(self, period: str) -> int:
        """Requests that may still be admitted in `period` (X-Quota-Remaining)."""
        return max(0, self.quota - self.used_in(period))

    def admitted(self, request_id: str) -> bool:
        """True when the admission of `request_id` is recorded in its slot (it applied)."""
        slot, tag = request_tag(request_id)
        return self.recent[slot] == tag

    def refunded(self, request_id: str) -> bool:
        """True when the last refund recorded is that of `request_id`."""
        return self.last_refund == request_tag(request_id)[1]


@dataclass(frozen=True)
class SettleTarget:
    """Where a refund or a forgiveness takes its unit from: the closed month's counts, or the current month's
    and one of its days (None: no day has a count left; the unit is one counted before the item kept days)."""

    closed: bool
    day: int | None = None


def settle_target(state: MeterState, period: str, day: int, *, refund: bool) -> SettleTarget | None:
    """Where a unit that an admission took in `period`, on `day`, is given back (refund) or forgiven, on `state`.

    In the current month: from `day` while it has a count, else the nearest day before it that has one, else
    the nearest after (a day can run out before its own admissions are settled: a forgiven admission of unknown
    outcome that had not applied took a unit that another admission of its day holds), else from the count
    itself when it is left with units counted before the item kept days. In the closed month: from its count
    (its days are gone). None when there is nothing to take: a refund needs a unit reserved, and no charge goes
    below zero.
    """
    if state.period == period:
        if refund and state.used <= 0:
            return None
        before = [other for other in range(day, 0, -1) if state.days[other - 1] > 0]
        after = [other for other in range(day + 1, DAYS + 1) if state.days[other - 1] > 0]
        if before or after:
            return SettleTarget(closed=False, day=(before or after)[0])
        return SettleTarget(closed=False) if state.used > state.forgiven else None
    if state.prev_period == period and (state.prev_used > 0 or not refund):
        return SettleTarget(closed=True)
    return None
