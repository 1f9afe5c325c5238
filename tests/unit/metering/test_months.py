"""The quota's months: a month's period and an instant's day, worked out once per month, agree with the calendar at
every month's edges and anywhere else, in any order of instants."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from fileapi.metering.months import MICROS, day_of, month_period, period_of, utc


def calendar_period(now_us: int) -> str:
    return datetime.fromtimestamp(now_us / MICROS, tz=UTC).strftime("%Y-%m")


def calendar_day(now_us: int, period: str) -> int:
    now = utc(now_us)
    return now.day if month_period(now) == period else 1


def instants() -> list[int]:
    """Each month's first and last microsecond, and its days' edges, from 1970 to 2100; then random instants."""
    found = []
    for year in range(1970, 2100):
        for month in range(1, 13):
            start = datetime(year, month, 1, tzinfo=UTC)
            for moment in (start, start + timedelta(days=1), start + timedelta(days=27, hours=23)):
                edge = int(moment.timestamp()) * MICROS
                found += [edge - 1, edge, edge + 1]
    generator = random.Random(33)
    return found + [generator.randrange(0, 4_102_444_800 * MICROS) for _ in range(20_000)]


def test_period_and_day_agree_with_the_calendar_in_order_and_out_of_it() -> None:
    ordered = instants()
    shuffled = random.Random(7).sample(ordered, len(ordered))
    for now_us in [*ordered, *shuffled]:
        period = period_of(now_us)
        assert period == calendar_period(now_us), now_us
        for asked in (period, "2026-11", "1969-12"):
            assert day_of(now_us, asked) == calendar_day(now_us, asked), (now_us, asked)
