"""Metering logic over the DynamoDB store, single-threaded against moto's in-process mock."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from fileapi.errors import QuotaExceeded, RateLimited, ServiceUnavailable, SubscriptionInactive, Unauthorized
from fileapi.metering.accounts import Account
from fileapi.metering.admin import create_key, ensure_key
from fileapi.metering.dynamodb import DynamoStore
from fileapi.metering.keys import hash_key
from fileapi.metering.meter import Meter, next_month_start, parse_bearer
from fileapi.metering.store import AccountExists

T0 = int(datetime(2026, 11, 30, 23, 59, 50, tzinfo=UTC).timestamp() * 1_000_000)


class Clock:
    def __init__(self, now_us: int = T0) -> None:
        self.now_us = now_us

    def __call__(self) -> int:
        return self.now_us

    def advance(self, seconds: float) -> None:
        self.now_us += int(seconds * 1_000_000)


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def meter(store: DynamoStore, clock: Clock) -> Meter:
    return Meter(store, clock=clock, upgrade_url="https://example.com/upgrade")


def account_of(store: DynamoStore, key: str) -> Account:
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    return account


def test_parse_bearer_accepts_only_bearer_keys() -> None:
    key = "sk_live_" + "a" * 43
    assert parse_bearer(f"Bearer {key}") == key
    assert parse_bearer(f"bearer   {key} ") == key
    for bad in (None, "", key, f"Basic {key}", "Bearer sk_test_" + "a" * 43, "Bearer sk_live_short"):
        with pytest.raises(Unauthorized):
            parse_bearer(bad)


def test_unknown_key_is_unauthorized(meter: Meter) -> None:
    with pytest.raises(Unauthorized, match="invalid API key"):
        meter.authenticate("Bearer sk_live_" + "b" * 43)


def test_inactive_subscription_is_403(meter: Meter, store: DynamoStore) -> None:
    key = create_key(store, email="x@example.com", plan="pro", status="past_due")
    with pytest.raises(SubscriptionInactive, match="past_due") as caught:
        meter.authenticate(f"Bearer {key}")
    assert caught.value.upgrade_url == "https://example.com/upgrade"


def test_trialing_counts_as_active(meter: Meter, store: DynamoStore) -> None:
    key = create_key(store, email="t@example.com", plan="pro", status="trialing")
    assert meter.authenticate(f"Bearer {key}").plan == "pro"


def test_bucket_allows_burst_then_refills_at_sustained_rate(meter: Meter, store: DynamoStore, clock: Clock) -> None:
    # GIVEN a starter key (burst 5, 2 req/s)
    account = account_of(store, create_key(store, email="s@example.com", plan="starter"))
    # WHEN 5 requests arrive at once THEN all are admitted, remaining counts down
    remaining = [meter.admit(account, counted=True).rate_remaining for _ in range(5)]
    assert remaining == [4, 3, 2, 1, 0]
    # AND the sixth is refused with a whole-second Retry-After
    with pytest.raises(RateLimited) as caught:
        meter.admit(account, counted=True)
    assert caught.value.headers["Retry-After"] == "1"
    # WHEN half a second passes THEN exactly one more token is there
    clock.advance(0.5)
    meter.admit(account, counted=True)
    with pytest.raises(RateLimited):
        meter.admit(account, counted=True)
    # WHEN the bucket has been idle long enough THEN the full burst is back
    clock.advance(10)
    assert meter.admit(account, counted=True).rate_remaining == 4


def test_rate_override_applies(meter: Meter, store: DynamoStore) -> None:
    key = create_key(store, email="o@example.com", plan="starter")
    store.update_account(replace(account_of(store, key), burst_override=2))
    account = account_of(store, key)
    assert account.limits.burst == 2
    meter.admit(account, counted=True)
    meter.admit(account, counted=True)
    with pytest.raises(RateLimited):
        meter.admit(account, counted=True)


def test_quota_counts_only_commits_and_never_passes_the_cap(meter: Meter, store: DynamoStore) -> None:
    account = account_of(store, create_key(store, email="q@example.com", plan="business", quota=3))
    admissions = [meter.admit(account, counted=True) for _ in range(5)]
    # Admitted requests that fail are never committed: they cost nothing.
    assert [meter.commit(admission, f"r{i}") for i, admission in enumerate(admissions[:3])] == [2, 1, 0]
    with pytest.raises(QuotaExceeded, match="monthly quota of 3 requests used up"):
        meter.commit(admissions[3], "r3")
    with pytest.raises(QuotaExceeded):
        meter.admit(account, counted=True)
    assert meter.usage(account).used_this_month == 3


def test_commit_retry_with_same_request_id_counts_once(meter: Meter, store: DynamoStore) -> None:
    account = account_of(store, create_key(store, email="i@example.com", plan="pro"))
    admission = meter.admit(account, counted=True)
    assert meter.commit(admission, "same") == 9_999
    assert meter.commit(admission, "same") == 9_999
    assert meter.usage(account).used_this_month == 1


def test_self_service_admission_ignores_used_up_quota(meter: Meter, store: DynamoStore) -> None:
    account = account_of(store, create_key(store, email="z@example.com", plan="pro", quota=0))
    with pytest.raises(QuotaExceeded):
        meter.admit(account, counted=True)
    admission = meter.admit(account, counted=False)
    assert meter.quota_remaining(admission) == 0


def test_rate_limit_is_reported_before_quota(meter: Meter, store: DynamoStore) -> None:
    account = account_of(store, create_key(store, email="rq@example.com", plan="starter", quota=0))
    for _ in range(5):
        meter.admit(account, counted=False)
    with pytest.raises(RateLimited):
        meter.admit(account, counted=True)


def test_usage_resets_with_the_utc_month(meter: Meter, store: DynamoStore, clock: Clock) -> None:
    account = account_of(store, create_key(store, email="m@example.com", plan="pro", quota=1))
    meter.commit(meter.admit(account, counted=True), "a")
    report = meter.usage(account)
    assert (report.used_this_month, report.remaining) == (1, 0)
    assert report.resets_at == "2026-12-01T00:00:00.000Z"
    clock.advance(10)  # 2026-12-01T00:00:00Z
    report = meter.usage(account)
    assert (report.used_this_month, report.remaining, report.resets_at) == (0, 1, "2027-01-01T00:00:00.000Z")
    meter.commit(meter.admit(account, counted=True), "b")


def test_usage_report_shape(meter: Meter, store: DynamoStore) -> None:
    account = account_of(store, create_key(store, email="u@example.com", plan="growth"))
    report = meter.usage(account)
    assert (report.plan, report.quota_monthly, report.used_this_month, report.remaining, report.status) == (
        "growth",
        50_000,
        0,
        50_000,
        "active",
    )


def test_next_month_start_rolls_over_the_year() -> None:
    assert next_month_start(datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == datetime(2027, 1, 1, tzinfo=UTC)


def test_create_key_refuses_a_taken_email(store: DynamoStore) -> None:
    create_key(store, email="dup@example.com", plan="pro")
    with pytest.raises(AccountExists):
        create_key(store, email="DUP@example.com", plan="pro")


def test_ensure_key_creates_then_updates_plan_and_quota(store: DynamoStore) -> None:
    key = "sk_live_" + "d" * 43
    ensure_key(store, key=key, email="dev@example.com", plan="business")
    ensure_key(store, key=key, email="dev@example.com", plan="starter", quota=7)
    account = account_of(store, key)
    assert (account.plan, account.quota_override, account.limits.quota_monthly) == ("starter", 7, 7)


class FailingClient:
    """A DynamoDB client that fails every call the way a throttled or unreachable service does."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        def fail(**_: Any) -> Any:
            self.calls += 1
            raise self.error

        return fail


@pytest.mark.parametrize(
    "error",
    [
        ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}}, "UpdateItem"),
        EndpointConnectionError(endpoint_url="http://127.0.0.1:9"),
    ],
)
def test_store_failures_fail_closed_after_bounded_retries(error: Exception) -> None:
    client = FailingClient(error)
    meter = Meter(DynamoStore("t", client, attempts=3, sleep=lambda _: None))  # type: ignore[arg-type]
    with pytest.raises(ServiceUnavailable, match="not processed or counted") as caught:
        meter.authenticate("Bearer sk_live_" + "c" * 43)
    assert caught.value.http_status == 503
    assert caught.value.headers["Retry-After"] == "1"
    assert client.calls == 3


def test_non_retryable_client_errors_are_not_retried() -> None:
    client = FailingClient(ClientError({"Error": {"Code": "ValidationException", "Message": "x"}}, "GetItem"))
    store = DynamoStore("t", client, attempts=3, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(ClientError):
        store.get_usage("a", "2026-11")
    assert client.calls == 1
