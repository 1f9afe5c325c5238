"""Subscription plans, exactly as the contract's Limits table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """A plan's limits.

    :param sustained_per_second: token-bucket refill rate, requests per second.
    :param burst: token-bucket capacity, requests.
    :param quota_monthly: successful requests per UTC calendar month.
    """

    name: str
    sustained_per_second: int
    burst: int
    quota_monthly: int


PLANS: dict[str, Plan] = {
    plan.name: plan
    for plan in (
        Plan("starter", 2, 5, 2_500),
        Plan("pro", 5, 15, 10_000),
        Plan("growth", 20, 40, 50_000),
        Plan("scale", 100, 200, 250_000),
        Plan("business", 400, 800, 1_000_000),
    )
}


def get_plan(name: str) -> Plan:
    """The plan called `name` (lower case).

    :raises KeyError: no such plan (the message lists the plans).
    """
    try:
        return PLANS[name]
    except KeyError:
        raise KeyError(f"unknown plan {name!r}; plans are {', '.join(PLANS)}") from None
