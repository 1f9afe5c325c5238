"""UTC calendar months: the quota's period."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

MICROS = 1_000_000
DAY_US = 86_400 * MICROS  # a UTC day in epoch time (no leap seconds)


def utc(now_us: int) -> datetime:
    """The instant `now_us` (epoch microseconds) as an aware UTC datetime."""
    return datetime.fromtimestamp(now_us / MICROS, tz=UTC)


def month_period(now: datetime) -> str:
    """'YYYY-MM' of the UTC month containing `now`."""
    return now.astimezone(UTC).strftime("%Y-%m")


@dataclass(frozen=True)
class _Month:
    """A UTC month: [start_us, end_us) in epoch microseconds, and its 'YYYY-MM'."""

    start_us: int
    end_us: int
    period: str


_last_month = _Month(0, 0, "")  # the month asked for last: every admission asks, twice (its period, its day)


def _month_of(now_us: int) -> _Month:
    """The UTC month containing `now_us`, worked out only when it is not the one asked for last (the
    calendar costs microseconds that a request's admission pays several times; this, a comparison)."""
    global _last_month
    month = _last_month
    if not month.start_us <= now_us < month.end_us:
        now = utc(now_us)
        start = datetime(now.year, now.month, 1, tzinfo=UTC)
        end = next_month_start(now)
        month = _last_month = _Month(int(start.timestamp()) * MICROS, int(end.timestamp()) * MICROS, month_period(now))
    return month


def period_of(now_us: int) -> str:
    """'YYYY-MM' of the UTC month containing the instant `now_us` (epoch microseconds): month_period(utc(now_us))."""
    return _month_of(now_us).period


def next_month_start(now: datetime) -> datetime:
    """The 1st of the month after `now`, 00:00:00 UTC: when the quota resets."""
    now = now.astimezone(UTC)
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return datetime(year, month, 1, tzinfo=UTC)


def seconds_to_next_month(now_us: int) -> int:
    """Whole seconds (>= 1, rounded up) from `now_us` to the next quota reset."""
    reset_us = int(next_month_start(utc(now_us)).timestamp()) * MICROS
    return max(1, -(-(reset_us - now_us) // MICROS))


def iso_millis(instant: datetime) -> str:
    """ISO 8601 in UTC with milliseconds, e.g. 2026-12-01T00:00:00.000Z."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def days_in_month(period: str) -> int:
    """The number of days of the UTC month 'YYYY-MM'."""
    year, month = (int(part) for part in period.split("-"))
    start = datetime(year, month, 1, tzinfo=UTC)
    return (next_month_start(start) - start).days


def day_of(now_us: int, period: str) -> int:
    """The day of `period` (1 to 31) that an instant counts on: its own UTC day when it is in `period`, else the
    period's first (an instant before it: another instance's clock had turned the month already)."""
    month = _month_of(now_us)
    return (now_us - month.start_us) // DAY_US + 1 if month.period == period else 1
