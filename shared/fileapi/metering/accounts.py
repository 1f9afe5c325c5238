"""An account and the limits in force for it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fileapi.metering.months import MICROS
from fileapi.metering.plans import SHARD_HEADROOM, Plan, shards_needed
from fileapi.metering.ratelimit import emission_interval_us

ACTIVE_STATUSES = frozenset({"active", "trialing"})


@dataclass(frozen=True)
class Limits:
    """Effective limits of an account: its plan's, or its overrides, and the shards they need.

    A sharded key's bucket and quota are spread evenly: each of `shards` items refills at
    sustained x (1 + SHARD_HEADROOM) / shards, holds ceil(burst x (1 + SHARD_HEADROOM) / shards) tokens and a
    share of the quota (the quota gets no headroom: it stays a hard cap).
    """

    quota_monthly: int
    sustained_per_second: float
    burst: int
    shards: int = 1

    @property
    def interval_us(self) -> int:
        """GCRA emission interval of the whole key: microseconds between tokens at the sustained rate."""
        return emission_interval_us(self.sustained_per_second)

    @property
    def headroom(self) -> float:
        """The factor a sharded key's items are given over an even split (1 on one item): see SHARD_HEADROOM."""
        return 1 + SHARD_HEADROOM if self.shards > 1 else 1.0

    @property
    def shard_interval_us(self) -> int:
        """The emission interval of one shard's bucket."""
        return max(1, round(MICROS * self.shards / (self.sustained_per_second * self.headroom)))

    @property
    def shard_burst(self) -> int:
        """The capacity of one shard's bucket."""
        return max(1, math.ceil(self.burst * self.headroom / self.shards))

    def quota_share(self, shard: int, quota: int | None = None) -> int:
        """Shard `shard`'s share of `quota` (default: the monthly quota), the remainder going to the first shards."""
        total = self.quota_monthly if quota is None else quota
        return total // self.shards + (1 if shard < total % self.shards else 0)


@dataclass(frozen=True)
class Account:
    """What the store keeps about a customer.

    :param quota_override: monthly quota for a custom contract (None: the plan's).
    :param sustained_override: requests per second refill, may be fractional (None: the plan's).
    :param burst_override: bucket capacity (None: the plan's).
    """

    account_id: str
    email: str
    plan: str
    status: str
    key_hash: str
    customer_id: str | None = None
    quota_override: int | None = None
    sustained_override: float | None = None
    burst_override: int | None = None

    @property
    def is_active(self) -> bool:
        """Subscriptions that are live: 'active' (and Stripe's 'trialing')."""
        return self.status in ACTIVE_STATUSES

    def limits_under(self, plan: Plan) -> Limits:
        """The limits in force on `plan`: each override where set, else the plan's value; the shards the
        plan fixes, else as many as the effective rate and burst need."""
        sustained = self.sustained_override if self.sustained_override is not None else plan.sustained_per_second
        burst = self.burst_override if self.burst_override is not None else plan.burst
        return Limits(
            quota_monthly=self.quota_override if self.quota_override is not None else plan.quota_monthly,
            sustained_per_second=sustained,
            burst=burst,
            shards=plan.shards or shards_needed(sustained, burst),
        )
