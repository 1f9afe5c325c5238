"""Metering: authenticate a key, admit a request (rate limit, quota), count a success.

Order of refusals: 401 unauthorized, 403 subscription_inactive, 429 rate_limited,
429 quota_exceeded. Counting happens on success only: `admit` checks the quota
(riding as a condition on the rate-limit update) and `commit`, called once the work
succeeded, makes one conditional increment that refuses to pass the quota. So the cap
holds under any concurrency, failed requests cost nothing, and each success sees a
distinct X-Quota-Remaining.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from fileapi.errors import QuotaExceeded, RateLimited, ServiceUnavailable, SubscriptionInactive, Unauthorized
from fileapi.metering.accounts import Account, Limits
from fileapi.metering.keys import hash_key, is_well_formed
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.store import BucketEmpty, MeteringStore, QuotaUsedUp, StoreUnavailable

# Usage items are kept about 13 months after their month ends (history), then TTL deletes them.
USAGE_RETENTION_SECONDS = 400 * 86_400

_T = TypeVar("_T")


@dataclass(frozen=True)
class Admission:
    """A request let in: what `commit` and the rate-limit headers need."""

    account: Account
    limits: Limits
    period: str
    bucket: Bucket
    tat_us: int
    counted: bool

    @property
    def rate_remaining(self) -> int:
        return self.bucket.remaining_after(self.tat_us)

    @property
    def rate_reset_seconds(self) -> int:
        return self.bucket.reset_seconds(self.tat_us)


@dataclass(frozen=True)
class UsageReport:
    """The contract's Usage resource."""

    plan: str
    quota_monthly: int
    used_this_month: int
    remaining: int
    resets_at: str
    status: str


def month_period(now: datetime) -> str:
    """'YYYY-MM' of the UTC month containing `now`."""
    return now.strftime("%Y-%m")


def next_month_start(now: datetime) -> datetime:
    """The 1st of the month after `now`, 00:00:00 UTC: when the quota resets."""
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return datetime(year, month, 1, tzinfo=UTC)


def iso_millis(instant: datetime) -> str:
    """ISO 8601 in UTC with milliseconds, e.g. 2026-12-01T00:00:00.000Z."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def parse_bearer(authorization: str | None) -> str:
    """The key of an `Authorization: Bearer <key>` header.

    :raises Unauthorized: missing header, another scheme, or a value that is not a key.
    """
    if not authorization:
        raise Unauthorized("missing API key: send 'Authorization: Bearer sk_live_...'")
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not is_well_formed(key):
        raise Unauthorized("malformed Authorization header: expected 'Bearer sk_live_...'")
    return key


class Meter:
    """Metering over a MeteringStore.

    :param clock: current time in microseconds since the epoch (injected in tests).
    :param upgrade_url: link put on quota and subscription errors, when configured.
    """

    def __init__(
        self,
        store: MeteringStore,
        *,
        clock: Callable[[], int] = lambda: time.time_ns() // 1000,
        upgrade_url: str | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.upgrade_url = upgrade_url

    def authenticate(self, authorization: str | None) -> Account:
        """The active account of the request's key.

        :raises Unauthorized: no key, a malformed key, or a key no account holds.
        :raises SubscriptionInactive: the account's subscription is not active.
        :raises ServiceUnavailable: the store could not be reached.
        """
        key = parse_bearer(authorization)
        account = guarded(lambda: self.store.get_account_by_key(hash_key(key)))
        if account is None:
            raise Unauthorized("invalid API key")
        if not account.is_active:
            raise SubscriptionInactive(
                f"the subscription of this key is {account.status}, not active", upgrade_url=self.upgrade_url
            )
        return account

    def admit(self, account: Account, *, counted: bool) -> Admission:
        """Take a rate-limit token and, for counted requests, check the quota is not used up.

        :param counted: the request counts against the quota when it succeeds.
        :raises RateLimited: the bucket is empty (Retry-After in whole seconds, >= 1).
        :raises QuotaExceeded: the month's quota is used up.
        """
        now_us = self.clock()
        now = _utc(now_us)
        limits = account.limits
        bucket = Bucket.at(now_us, limits)
        period = month_period(now)
        try:
            tat = guarded(
                lambda: self.store.take_token(
                    account.account_id,
                    period,
                    bucket,
                    quota=limits.quota_monthly if counted else None,
                    expires_at=self._expires_at(now),
                )
            )
        except BucketEmpty as exc:
            raise RateLimited(
                f"rate limit of {limits.sustained_per_second} requests/s (burst {limits.burst}) exceeded",
                retry_after_seconds=bucket.retry_after_seconds(exc.tat_us),
                upgrade_url=self.upgrade_url,
            ) from None
        except QuotaUsedUp:
            raise self._quota_exceeded(limits, now) from None
        return Admission(account, limits, period, bucket, tat, counted)

    def commit(self, admission: Admission, request_id: str) -> int:
        """Count a successful request; return the quota left after it (X-Quota-Remaining).

        :raises QuotaExceeded: concurrent requests used the last units first; the work is thrown away.
        """
        quota = admission.limits.quota_monthly
        now = _utc(self.clock())
        try:
            used = guarded(
                lambda: self.store.count_success(
                    admission.account.account_id,
                    admission.period,
                    quota=quota,
                    request_id=request_id,
                    expires_at=self._expires_at(now),
                )
            )
        except QuotaUsedUp:
            raise self._quota_exceeded(admission.limits, now) from None
        return max(0, quota - used)

    def quota_remaining(self, admission: Admission) -> int:
        """The quota left this month, without counting (for self-service responses)."""
        usage = guarded(lambda: self.store.get_usage(admission.account.account_id, admission.period))
        return max(0, admission.limits.quota_monthly - usage.used)

    def usage(self, account: Account) -> UsageReport:
        """The Usage resource of the contract for `account`, this UTC month."""
        now = _utc(self.clock())
        usage = guarded(lambda: self.store.get_usage(account.account_id, month_period(now)))
        quota = account.limits.quota_monthly
        return UsageReport(
            plan=account.plan,
            quota_monthly=quota,
            used_this_month=usage.used,
            remaining=max(0, quota - usage.used),
            resets_at=iso_millis(next_month_start(now)),
            status=account.status,
        )

    def _quota_exceeded(self, limits: Limits, now: datetime) -> QuotaExceeded:
        return QuotaExceeded(
            f"monthly quota of {limits.quota_monthly} requests used up; it resets at "
            f"{iso_millis(next_month_start(now))}",
            upgrade_url=self.upgrade_url,
        )

    @staticmethod
    def _expires_at(now: datetime) -> int:
        return int(next_month_start(now).timestamp()) + USAGE_RETENTION_SECONDS


def guarded(operation: Callable[[], _T]) -> _T:
    """Run a store operation; a store that cannot be reached fails the request closed (503)."""
    try:
        return operation()
    except StoreUnavailable as exc:
        raise ServiceUnavailable(
            f"the account store is unavailable ({exc}); the request was not processed or counted"
        ) from None


def _utc(now_us: int) -> datetime:
    return datetime.fromtimestamp(now_us / 1_000_000, tz=UTC)
