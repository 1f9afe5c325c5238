"""An account and the limits in force for it."""

from __future__ import annotations

from dataclasses import dataclass

from fileapi.metering.plans import get_plan

ACTIVE_STATUSES = frozenset({"active", "trialing"})


@dataclass(frozen=True)
class Limits:
    """Effective limits of an account: its plan's, or its overrides."""

    quota_monthly: int
    sustained_per_second: float
    burst: int


@dataclass(frozen=True)
class Account:
    """What the store keeps about a customer.

    :param quota_override: monthly quota for a custom contract (None: the plan's).
    :param sustained_override: requests per second refill (None: the plan's).
    :param burst_override: bucket capacity (None: the plan's).
    """

    account_id: str
    email: str
    plan: str
    status: str
    key_hash: str
    customer_id: str | None = None
    quota_override: int | None = None
    sustained_override: int | None = None
    burst_override: int | None = None

    @property
    def is_active(self) -> bool:
        """Subscriptions that are live: 'active' (and Stripe's 'trialing')."""
        return self.status in ACTIVE_STATUSES

    @property
    def limits(self) -> Limits:
        """The limits in force: each override where set, else the plan's value."""
        plan = get_plan(self.plan)
        return Limits(
            quota_monthly=self.quota_override if self.quota_override is not None else plan.quota_monthly,
            sustained_per_second=(
                self.sustained_override if self.sustained_override is not None else plan.sustained_per_second
            ),
            burst=self.burst_override if self.burst_override is not None else plan.burst,
        )
