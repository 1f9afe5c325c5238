"""The contract's Usage resource of one account, from its admission items: this month's count, its quota, and
the count of each day of the month so far."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from fileapi.metering.months import day_of, iso_millis, month_period, next_month_start, utc
from fileapi.metering.state import DAYS, MeterState


@dataclass(frozen=True)
class DayUsage:
    """Successful requests charged on one UTC day (`date`: 'YYYY-MM-DD')."""

    date: str
    requests: int


@dataclass(frozen=True)
class UsageReport:
    """The contract's Usage resource, and the month's days so far (`daily`, adding up to `used_this_month`)."""

    plan: str
    quota_monthly: int
    used_this_month: int
    remaining: int
    resets_at: str
    status: str
    daily: tuple[DayUsage, ...]

    @property
    def period(self) -> str:
        """The UTC month 'YYYY-MM' reported (`daily` always starts with its 1st)."""
        return self.daily[0].date[:7]


def usage_report(states: Sequence[MeterState], *, now_us: int) -> UsageReport:
    """The usage of the account whose admission items are `states` (by shard; at least one) at `now_us`.

    The month is the latest the clock or an item is in (another instance's clock may have turned it first).
    `daily` lists every day of it from the 1st to today, or to the latest day with a count when that is later
    (again another instance's clock), 0 where none.
    """
    period = max(month_period(utc(now_us)), *(state.period for state in states))
    quota = sum(state.quota if state.period == period else state.base_quota for state in states)
    used = sum(state.used_in(period) for state in states)
    per_day = [sum(counts) for counts in zip(*(state.daily_in(period) for state in states), strict=True)]
    counted = [day for day in range(1, DAYS + 1) if per_day[day - 1]]
    last = max(day_of(now_us, period), *counted) if counted else day_of(now_us, period)
    start = datetime(int(period[:4]), int(period[5:]), 1, tzinfo=UTC)
    return UsageReport(
        plan=states[0].plan,
        quota_monthly=sum(state.base_quota for state in states) if len(states) > 1 else quota,
        used_this_month=sum(state.counted_in(period) for state in states),
        remaining=max(0, quota - used),
        resets_at=iso_millis(next_month_start(start)),
        status=states[0].status,
        daily=tuple(DayUsage(f"{period}-{day:02d}", per_day[day - 1]) for day in range(1, last + 1)),
    )
