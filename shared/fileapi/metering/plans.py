"""Plans: the contract's five as defaults in code, and custom plans as data in the table.

A plan gives a key its sustained rate, burst and monthly quota, and the number of shards its rate
needs: one item of the table takes at most `MAX_ITEM_WRITES_PER_SECOND` writes a second (a margin
under DynamoDB's 1,000 per partition), and the worst second of a plan is a full burst on top of its
sustained rate, so a plan whose `sustained + burst` passes that spreads its bucket and its quota over
that many items. Custom plans are created with `fileapi plans create` (see `fileapi.metering.catalog`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_ITEM_WRITES_PER_SECOND = 800
# A sharded key's items get this much more rate and burst than an even split, because requests from many
# instances never spread evenly: a key used at its plan's rate then sees no shard run dry while others have
# tokens (the load model's 10,000 req/s key: no request refused, 1.02 calls per success; docs/metering.md).
# So a sharded key may admit up to 2% beyond its plan's rate and burst; its quota gets none.
SHARD_HEADROOM = 0.02
# An account is created in one transaction of at most 100 items: its shards, and its key, e-mail, contact,
# customer and delivery items.
MAX_SHARDS = 95
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


def shards_needed(sustained_per_second: float, burst: int) -> int:
    """Items a bucket of `burst` refilled at `sustained_per_second` needs so that none takes more than
    MAX_ITEM_WRITES_PER_SECOND writes in its worst second (a full burst plus a second of refill), at most
    MAX_SHARDS (a plan beyond 95 x 800 = 76,000 writes a second is not sold)."""
    worst_second = sustained_per_second + burst
    if worst_second <= MAX_ITEM_WRITES_PER_SECOND:
        return 1
    shards = math.ceil(worst_second * (1 + SHARD_HEADROOM) / MAX_ITEM_WRITES_PER_SECOND)
    return min(MAX_SHARDS, shards)


@dataclass(frozen=True)
class Plan:
    """A plan's limits.

    :param sustained_per_second: token-bucket refill rate, requests per second (> 0, may be fractional).
    :param burst: token-bucket capacity, requests (>= 1).
    :param quota_monthly: successful requests per UTC calendar month (>= 0).
    :param shards: items the key's bucket and quota are spread over; 0 derives it from rate and burst.
    :raises ValueError: a value out of its bounds (the message names it).
    """

    name: str
    sustained_per_second: float
    burst: int
    quota_monthly: int
    shards: int = 0

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"a plan name is 1-32 of a-z 0-9 - (starting with a letter or digit), not {self.name!r}")
        if not self.sustained_per_second > 0:
            raise ValueError(f"sustained rate must be > 0 requests/s, not {self.sustained_per_second}")
        if self.burst < 1:
            raise ValueError(f"burst must be >= 1, not {self.burst}")
        if self.quota_monthly < 0:
            raise ValueError(f"monthly quota must be >= 0, not {self.quota_monthly}")
        if not 0 <= self.shards <= MAX_SHARDS:
            raise ValueError(f"shards must be 0 (derived) to {MAX_SHARDS}, not {self.shards}")

    @property
    def shard_count(self) -> int:
        """The items a key on this plan (without overrides) is spread over."""
        return self.shards or shards_needed(self.sustained_per_second, self.burst)


CONTRACT_PLANS: dict[str, Plan] = {
    plan.name: plan
    for plan in (
        Plan("starter", 2, 5, 2_500),
        Plan("pro", 5, 15, 10_000),
        Plan("growth", 20, 40, 50_000),
        Plan("scale", 100, 200, 250_000),
        Plan("business", 400, 800, 1_000_000),
    )
}


MIB = 1024 * 1024
# The largest file an upload of each plan may carry (the presigned POST's content-length-range); a custom plan
# (a contract) gets the top plans' bound.
MAX_UPLOAD_BYTES: dict[str, int] = {
    "starter": 100 * MIB,
    "pro": 500 * MIB,
    "growth": 1024 * MIB,
    "scale": 2048 * MIB,
    "business": 2048 * MIB,
}
CUSTOM_PLAN_MAX_UPLOAD_BYTES = 2048 * MIB


def max_upload_bytes(plan: str) -> int:
    """The largest upload, in bytes, a key on `plan` may make (100 MiB to 2 GiB)."""
    return MAX_UPLOAD_BYTES.get(plan, CUSTOM_PLAN_MAX_UPLOAD_BYTES)


# Operations of one account that run at once, by plan; the account's others wait in its own turn (docs/operations.md,
# "Fair operations"). Each stays under OperationsConcurrency's default of 5, so no one account holds every run.
MAX_RUNNING_OPERATIONS: dict[str, int] = {
    "starter": 1,
    "pro": 1,
    "growth": 2,
    "scale": 2,
    "business": 3,
}
CUSTOM_PLAN_MAX_RUNNING_OPERATIONS = 3


def max_running_operations(plan: str) -> int:
    """How many operations of an account on `plan` may run at once (1 to 3); the rest wait their turn."""
    return MAX_RUNNING_OPERATIONS.get(plan, CUSTOM_PLAN_MAX_RUNNING_OPERATIONS)


class UnknownPlan(KeyError):
    """No plan of that name (the message lists the plans)."""

    def __str__(self) -> str:
        return str(self.args[0])


def contract_plan(name: str) -> Plan:
    """One of the contract's plans (accounts of the first item layout were on these only).

    :raises UnknownPlan: not a contract plan.
    """
    if name not in CONTRACT_PLANS:
        raise UnknownPlan(f"unknown plan {name!r}; plans are {', '.join(CONTRACT_PLANS)}")
    return CONTRACT_PLANS[name]
