"""Token bucket as GCRA: one stored instant (the theoretical arrival time, TAT) per bucket.

All times are integer microseconds since the epoch. A bucket of capacity `burst` that
refills `sustained` tokens per second has an emission interval I = 1e6 / sustained and a
tolerance T = burst * I. A request at `now` is admitted when max(TAT, now) + I - now <= T,
and then TAT becomes max(TAT, now) + I. That is: a request is admitted while
max(TAT, now) <= now + T - I, the "ceiling" below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fileapi.metering.months import MICROS


def emission_interval_us(per_second: float) -> int:
    """GCRA's emission interval at `per_second` (> 0) tokens a second: microseconds between tokens, >= 1."""
    return max(1, round(MICROS / per_second))


@dataclass(frozen=True, slots=True)
class Bucket:
    """GCRA parameters of one admission attempt at `now_us`."""

    now_us: int
    interval_us: int
    tolerance_us: int

    @classmethod
    def at_rate(cls, now_us: int, *, per_second: float, burst: int) -> Bucket:
        """The bucket of `burst` tokens refilled at `per_second` (> 0) tokens a second, at `now_us`."""
        return cls.of(now_us, interval_us=emission_interval_us(per_second), burst=burst)

    @classmethod
    def of(cls, now_us: int, *, interval_us: int, burst: int) -> Bucket:
        """The bucket of `burst` tokens refilled one per `interval_us`, at `now_us`."""
        return cls(now_us, interval_us, interval_us * burst)  # positional: every admission makes one or two

    @property
    def burst(self) -> int:
        return self.tolerance_us // self.interval_us

    def admits(self, tat_us: int) -> bool:
        """True when a bucket whose TAT is `tat_us` has a token now."""
        return tat_us <= self.ceiling_us

    def next_tat(self, tat_us: int) -> int:
        """The TAT after one token is taken from a bucket whose TAT is `tat_us` (GCRA: max(TAT, now) + I)."""
        return max(tat_us, self.now_us) + self.interval_us

    def available_at_us(self, tat_us: int) -> int:
        """The instant at which a bucket whose TAT is `tat_us` has a token again."""
        return tat_us - self.tolerance_us + self.interval_us

    @property
    def ceiling_us(self) -> int:
        """The largest stored TAT that still admits a request now."""
        return self.now_us + self.tolerance_us - self.interval_us

    def remaining_after(self, new_tat_us: int) -> int:
        """Requests that could still be sent at once after the TAT moved to `new_tat_us` (0 to `burst`: a TAT in
        the past, as on a shard no request has reached yet, is a full bucket)."""
        return max(0, min(self.burst, (self.now_us + self.tolerance_us - new_tat_us) // self.interval_us))

    def retry_after_seconds(self, tat_us: int) -> int:
        """Whole seconds (>= 1) until a bucket whose TAT is `tat_us` admits a request."""
        wait_us = tat_us - self.ceiling_us
        return max(1, math.ceil(wait_us / MICROS))

    def reset_seconds(self, tat_us: int) -> int:
        """Whole seconds until the bucket is full again."""
        return max(0, math.ceil((tat_us - self.now_us) / MICROS))

    @property
    def window_seconds(self) -> int:
        """Seconds an empty bucket takes to refill completely (for RateLimit-Policy)."""
        return max(1, math.ceil(self.tolerance_us / MICROS))
