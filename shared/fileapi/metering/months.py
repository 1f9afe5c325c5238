"""UTC calendar months: the quota's period."""

from __future__ import annotations

from datetime import UTC, datetime

MICROS = 1_000_000


def utc(now_us: int) -> datetime:
    """The instant `now_us` (epoch microseconds) as an aware UTC datetime."""
    return datetime.fromtimestamp(now_us / MICROS, tz=UTC)


def month_period(now: datetime) -> str:
    """'YYYY-MM' of the UTC month containing `now`."""
    return now.astimezone(UTC).strftime("%Y-%m")


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
    now = utc(now_us)
    return now.day if month_period(now) == period else 1
