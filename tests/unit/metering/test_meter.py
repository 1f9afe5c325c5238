"""Metering behaviour, run against the in-memory and the DynamoDB stores alike (see conftest)."""

from __future__ import annotations

import random
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from fileapi.errors import QuotaExceeded, RateLimited, ServiceUnavailable, SubscriptionInactive, Unauthorized
from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, create_key, ensure_key, limits_of
from fileapi.metering.keys import KEY_LENGTH, generate_key, hash_key, is_well_formed, key_from_random, parse_bearer
from fileapi.metering.meter import Admission, Meter
from fileapi.metering.months import next_month_start, seconds_to_next_month
from fileapi.metering.settling import UNDERCOUNT_FAULTS, Fault
from fileapi.metering.state import MeterState
from fileapi.metering.storage import AccountExists, AccountStore, AdmissionStore, Attempt, Refused, Stores
from tests.memory_stores import memory_stores
from tests.metering_doubles import Clock, CountingStore, FaultyStore

# 10 s before the end of November 2026 (UTC).
T0 = int(datetime(2026, 11, 30, 23, 59, 50, tzinfo=UTC).timestamp() * 1_000_000)


@pytest.fixture()
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture()
def counting(stores: Stores) -> CountingStore:
    return CountingStore(stores.admission)


@pytest.fixture()
def meter(counting: CountingStore, clock: Clock) -> Meter:
    return Meter(counting, clock=clock, upgrade_url="https://example.com/upgrade")


def bearer(key: str) -> str:
    return f"Bearer {key}"


def admit(meter: Meter, key: str, *, counted: bool = True) -> Admission:
    return meter.admit(bearer(key), counted=counted, request_id=uuid.uuid4().hex)


def account_of(store: AccountStore, key: str) -> Account:
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    return account


def test_parse_bearer_accepts_only_bearer_keys() -> None:
    key = key_from_random("a" * 43)
    assert parse_bearer(f"Bearer {key}") == key
    assert parse_bearer(f"bearer   {key} ") == key
    for bad in (None, "", key, f"Basic {key}", "Bearer sk_test_" + "a" * 49, "Bearer sk_live_short"):
        with pytest.raises(Unauthorized, match=r"missing|malformed|invalid API key"):
            parse_bearer(bad)


def test_a_key_with_a_wrong_checksum_is_refused_offline() -> None:
    # GIVEN a real key, and the same key with one character of its random part changed or its checksum cut
    key = generate_key()
    mistyped = key[:10] + ("b" if key[10] != "b" else "c") + key[11:]
    for bad in (mistyped, key[:-1] + ("0" if key[-1] != "0" else "1")):
        # THEN the checksum says so, without asking any store
        with pytest.raises(Unauthorized, match="checksum does not match"):
            parse_bearer(f"Bearer {bad}")
    assert parse_bearer(f"Bearer {key}") == key and is_well_formed(key) and len(key) == KEY_LENGTH


def test_made_up_keys_cost_no_store_call(meter: Meter, counting: CountingStore) -> None:
    # GIVEN 100 made-up keys: well-formed but with a random checksum, and malformed ones
    rng = random.Random(17)
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    made_up = ["sk_live_" + "".join(rng.choice(alphabet) for _ in range(49)) for _ in range(90)]
    made_up += ["sk_live_" + "x" * n for n in range(10)]
    # WHEN each is used THEN each is 401 and the store is never asked
    for key in made_up:
        if is_well_formed(key):
            continue  # one in 56 billion: a random string that happens to carry its checksum
        with pytest.raises(Unauthorized):
            admit(meter, key)
    assert counting.total == 0


def test_unknown_key_is_401_and_remembered(meter: Meter, counting: CountingStore) -> None:
    # GIVEN a well-formed key no account holds
    key = key_from_random("b" * 43)
    # WHEN it is used twice THEN both are 401, and only the first asks the store
    for _ in range(2):
        with pytest.raises(Unauthorized, match="invalid API key"):
            admit(meter, key)
    assert counting.total == 1


def test_inactive_subscription_is_403_with_upgrade_url(meter: Meter, store: AccountStore) -> None:
    key = create_key(store, email="x@example.com", plan="pro", status="past_due")
    with pytest.raises(SubscriptionInactive, match="past_due") as caught:
        admit(meter, key)
    assert caught.value.upgrade_url == "https://example.com/upgrade"


def test_trialing_counts_as_active(meter: Meter, store: AccountStore) -> None:
    key = create_key(store, email="t@example.com", plan="pro", status="trialing")
    assert admit(meter, key).state.plan == "pro"


def test_warm_success_is_one_store_call_and_cold_three(
    meter: Meter, store: AccountStore, counting: CountingStore
) -> None:
    key = create_key(store, email="w@example.com", plan="scale")
    admit(meter, key)
    assert dict(counting.calls) == {"find_account_id": 1, "read": 1, "admit": 1}
    counting.calls.clear()
    for _ in range(20):
        admit(meter, key)
    assert dict(counting.calls) == {"admit": 20}


def test_a_sharded_key_spreads_its_requests_and_keeps_the_quota_exact(
    meter: Meter, stores: Stores, store: AccountStore, counting: CountingStore
) -> None:
    # GIVEN a business key (400/s, burst 800: a full burst and a second of refill are 1,200 writes, so
    # two items) with a quota of 9
    key = create_key(store, email="sharded@example.com", plan="business", quota=9)
    # WHEN 12 requests come
    admissions = [admit(meter, key) for _ in range(9)]
    with pytest.raises(QuotaExceeded, match="monthly quota of 9 requests used up"):
        admit(meter, key)
    # THEN they went to both items in turn, 9 were admitted and not one more, and once this process knows
    # both items, X-Quota-Remaining counted down exactly
    assert {admission.shard for admission in admissions} == {0, 1}
    assert [admission.quota_remaining for admission in admissions[2:]] == [6, 5, 4, 3, 2, 1, 0]
    shards = stores.admission.read_shards(admissions[0].account_id)
    assert [(state.quota, state.used) for state in shards] == [(5, 5), (4, 4)]
    # AND each item's bucket holds half the burst and refills at half the rate, each with 2% headroom (408
    # tokens, one every 4.902 ms); the headers give the key's
    assert (shards[0].burst, shards[0].interval_us) == (408, 4_902)
    assert admissions[-1].headers()["RateLimit-Limit"] == "816"
    # AND a failure is refunded on its own item, and usage sums the items
    meter.refund(admissions[0])
    report = meter.usage(admit(meter, key, counted=False))
    assert (report.quota_monthly, report.used_this_month, report.remaining) == (9, 8, 1)


def test_a_dry_shard_takes_quota_from_another(meter: Meter, stores: Stores, store: AccountStore) -> None:
    # GIVEN a business key whose quota of 10 sits 5 + 5 on its items, and 5 requests on the first item
    key = create_key(store, email="rebalance@example.com", plan="business", quota=10)
    account_id = account_of(store, key).account_id
    for _ in range(5):
        admit(meter, key)
    first, second = stores.admission.read_shards(account_id)
    # WHEN the item with quota left is used up while the other still has some
    # THEN requests go on until the whole quota is used, whichever item they go to, and not beyond
    for _ in range(5):
        admit(meter, key)
    with pytest.raises(QuotaExceeded):
        admit(meter, key)
    assert sum(state.used for state in stores.admission.read_shards(account_id)) == 10
    assert first.quota + second.quota == 10


def test_a_plan_change_lays_the_key_out_again_and_keeps_the_month(
    meter: Meter, stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a pro key (one item) with 4 requests this month
    key = create_key(store, email="relayout@example.com", plan="pro")
    for _ in range(4):
        admit(meter, key)
    account = account_of(store, key)
    # WHEN it moves to business (two items) THEN the count is kept and the rest of the quota is spread
    change_account(store, replace(account, plan="business"), now=clock() / 1e6)
    shards = stores.admission.read_shards(account.account_id)
    assert [state.shard for state in shards] == [0, 1]
    assert sum(state.used for state in shards) == 4 and sum(state.quota for state in shards) == 1_000_000
    assert admit(meter, key).state.shards == 2  # this process learns the new layout on its next request
    # WHEN it moves back to pro THEN one item again, holding the month's 5 requests, quota 10,000
    change_account(store, replace(account, plan="pro"), now=clock() / 1e6)
    (only,) = stores.admission.read_shards(account.account_id)
    assert (only.used, only.quota, only.shards) == (5, 10_000, 1)
    assert admit(meter, key).quota_remaining == 9_994


def test_bucket_allows_burst_then_refills_at_sustained_rate(meter: Meter, store: AccountStore, clock: Clock) -> None:
    # GIVEN a starter key (burst 5, 2 req/s)
    key = create_key(store, email="s@example.com", plan="starter")
    # WHEN 5 requests arrive at once THEN all are admitted, remaining counts down
    assert [admit(meter, key).rate_remaining for _ in range(5)] == [4, 3, 2, 1, 0]
    # AND the sixth is refused with the exact whole-second Retry-After and the metering headers
    with pytest.raises(RateLimited) as caught:
        admit(meter, key)
    headers = caught.value.headers
    assert (headers["Retry-After"], headers["RateLimit-Limit"], headers["RateLimit-Remaining"]) == ("1", "5", "0")
    assert headers["X-Quota-Remaining"] == "2495"
    assert headers["RateLimit-Reset"] == "3" and headers["RateLimit"] == '"default";r=0;t=3'
    assert headers["RateLimit-Policy"] == '"default";q=5;w=3'
    # WHEN half a second passes THEN exactly one more token is there
    clock.advance(0.5)
    admit(meter, key)
    with pytest.raises(RateLimited):
        admit(meter, key)
    # WHEN the bucket has been idle long enough THEN the full burst is back
    clock.advance(10)
    assert admit(meter, key).rate_remaining == 4


def test_seconds_held_by_a_job_ended_for_time_are_charged_to_the_keys_rate(
    meter: Meter, stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a starter key (burst 5, a token every 0.5 s) whose request held a worker for 20 s until it was killed
    key = create_key(store, email="bomb@example.com", plan="starter")
    admission = admit(meter, key)
    meter.hold(admission, 20.0)
    # THEN its bucket is 20 s further on: the next request waits 20.5 - 2 s (a full bucket's 2.5 s less a token)
    with pytest.raises(RateLimited) as caught:
        admit(meter, key)
    assert caught.value.headers["Retry-After"] == "19"
    # AND another process, which knows nothing of it, reads the same from the store
    with pytest.raises(RateLimited):
        admit(Meter(stores.admission, clock=clock), key)
    clock.advance(18.4)
    with pytest.raises(RateLimited):
        admit(meter, key)
    clock.advance(0.1)
    admit(meter, key)
    # WHEN an idle bucket is charged THEN it starts from now, not from its old TAT
    clock.advance(100)
    meter.hold(admit(meter, key), 3.0)
    with pytest.raises(RateLimited) as again:
        admit(meter, key)
    assert again.value.headers["Retry-After"] == "2"  # TAT now + 3.5 s, admitted from now + 1.5 s


def test_retry_after_is_rounded_up_to_the_token(meter: Meter, store: AccountStore, clock: Clock) -> None:
    # GIVEN a starter bucket emptied at once (burst 5, a token every 0.5 s)
    key = create_key(store, email="slow@example.com", plan="starter")
    for _ in range(5):
        admit(meter, key)
    # WHEN a sixth comes 0.1 s later THEN the token is 0.4 s away: Retry-After 1 (whole seconds, rounded up)
    clock.advance(0.1)
    with pytest.raises(RateLimited) as caught:
        admit(meter, key)
    assert caught.value.headers["Retry-After"] == "1"
    # AND after 0.39 s more it is still refused, after 0.4 s admitted
    clock.advance(0.39)
    with pytest.raises(RateLimited):
        admit(meter, key)
    clock.advance(0.01)
    admit(meter, key)


def test_refusals_the_process_knows_cost_no_store_call(
    meter: Meter, store: AccountStore, clock: Clock, counting: CountingStore
) -> None:
    key = create_key(store, email="r@example.com", plan="starter")
    for _ in range(5):
        admit(meter, key)
    with pytest.raises(RateLimited):
        admit(meter, key)  # learnt from the store
    counting.calls.clear()
    for _ in range(50):
        with pytest.raises(RateLimited):
            admit(meter, key)
    assert counting.total == 0
    # WHEN the token is due THEN the store is asked again and admits
    clock.advance(0.5)
    admit(meter, key)
    assert counting.calls["admit"] == 1


def test_limits_changed_elsewhere_are_learnt_on_the_next_admission(
    meter: Meter, store: AccountStore, counting: CountingStore, clock: Clock
) -> None:
    # GIVEN a starter key this process has cached (burst 5)
    key = create_key(store, email="o@example.com", plan="starter")
    admit(meter, key)
    # WHEN its burst is lowered to 2 by another process
    change_account(store, replace(account_of(store, key), burst_override=2), now=clock() / 1e6)
    # THEN the next admission learns it from the refused condition and admits with the new limit
    assert admit(meter, key).state.burst == 2
    with pytest.raises(RateLimited):
        admit(meter, key)


def test_quota_is_reserved_at_admission_and_refunded_on_failure(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a quota of 3
    key = create_key(store, email="q@example.com", plan="scale", quota=3)
    admissions = [admit(meter, key) for _ in range(3)]
    assert [a.quota_remaining for a in admissions] == [2, 1, 0]
    # WHEN a fourth comes THEN quota_exceeded, Retry-After the seconds to 1 December 00:00 UTC
    with pytest.raises(QuotaExceeded, match="monthly quota of 3 requests used up") as caught:
        admit(meter, key)
    assert caught.value.headers["Retry-After"] == "10" == str(seconds_to_next_month(clock()))
    assert caught.value.headers["X-Quota-Remaining"] == "0"
    # WHEN one of the three fails and is refunded THEN its unit is free again, in this process at once
    refunded = meter.refund(admissions[1])
    assert refunded.quota_remaining == 1 and refunded.refunded
    assert admit(meter, key).quota_remaining == 0
    assert meter.usage(admit(meter, key, counted=False)).used_this_month == 3


def test_refused_quota_is_rechecked_after_30_seconds(
    meter: Meter, store: AccountStore, clock: Clock, counting: CountingStore
) -> None:
    clock.set(datetime(2026, 11, 15, 12, 0, tzinfo=UTC))
    key = create_key(store, email="up@example.com", plan="pro", quota=1)
    admit(meter, key)
    with pytest.raises(QuotaExceeded):
        admit(meter, key)
    # WHEN the plan is upgraded elsewhere THEN this process still refuses from memory, without a store call
    change_account(store, replace(account_of(store, key), quota_override=None), now=clock() / 1e6)
    counting.calls.clear()
    with pytest.raises(QuotaExceeded):
        admit(meter, key)
    assert counting.total == 0
    # AND after 30 s it asks again and admits
    clock.advance(30)
    assert admit(meter, key).quota_remaining == 9_998


def test_self_service_admission_ignores_used_up_quota(meter: Meter, store: AccountStore) -> None:
    key = create_key(store, email="z@example.com", plan="pro", quota=0)
    with pytest.raises(QuotaExceeded):
        admit(meter, key)
    assert admit(meter, key, counted=False).quota_remaining == 0


def test_rate_limit_is_reported_before_quota(meter: Meter, store: AccountStore) -> None:
    key = create_key(store, email="rq@example.com", plan="starter", quota=0)
    for _ in range(5):
        admit(meter, key, counted=False)
    with pytest.raises(RateLimited):
        admit(meter, key)


def test_month_boundary_resets_the_quota_but_not_the_bucket(meter: Meter, store: AccountStore, clock: Clock) -> None:
    # GIVEN a starter key whose burst and quota are both used up at 23:59:59.9 on 30 November
    key = create_key(store, email="m@example.com", plan="starter", quota=5)
    clock.set(datetime(2026, 11, 30, 23, 59, 59, 900_000, tzinfo=UTC))
    for _ in range(5):
        admit(meter, key)
    # WHEN the next request comes at 00:00:00.1 on 1 December
    clock.set(datetime(2026, 12, 1, 0, 0, 0, 100_000, tzinfo=UTC))
    # THEN the bucket has not refilled (0.2 s gave 0.4 tokens): rate_limited, not a fresh burst
    with pytest.raises(RateLimited):
        admit(meter, key)
    # AND once a token is due, the request is admitted against December's fresh quota
    clock.advance(0.5)
    admission = admit(meter, key)
    assert admission.quota_remaining == 4 and admission.rate_remaining == 0
    report = meter.usage(admission)
    assert (report.used_this_month, report.resets_at) == (1, "2027-01-01T00:00:00.000Z")
    # AND November's count is kept beside it
    assert (admission.state.prev_period, admission.state.prev_used) == ("2026-11", 5)


def test_refund_after_the_month_turned_goes_to_the_closed_month(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    key = create_key(store, email="late@example.com", plan="scale", quota=100)
    clock.set(datetime(2026, 11, 30, 23, 59, 59, 900_000, tzinfo=UTC))
    late = admit(meter, key)  # admitted in November; it will fail after midnight
    clock.set(datetime(2026, 12, 1, 0, 0, 1, tzinfo=UTC))
    december = admit(meter, key)  # starts December
    after = meter.refund(late)
    assert (after.state.prev_period, after.state.prev_used) == ("2026-11", 0)
    assert after.state.used_in("2026-12") == december.state.used_in("2026-12") == 1


def test_refund_repeated_after_a_lost_reply_refunds_once(stores: Stores, store: AccountStore, meter: Meter) -> None:
    key = create_key(store, email="rr@example.com", plan="pro")
    admission = admit(meter, key)
    stores.admission.refund(admission.account_id, admission.period, admission.request_id, day=admission.day)
    again = stores.admission.refund(admission.account_id, admission.period, admission.request_id, day=admission.day)
    assert again is not None and again.used == 0


def test_usage_report_shape(meter: Meter, store: AccountStore) -> None:
    key = create_key(store, email="u@example.com", plan="growth")
    report = meter.usage(admit(meter, key, counted=False))
    assert (report.plan, report.quota_monthly, report.used_this_month, report.remaining, report.status) == (
        "growth",
        50_000,
        0,
        50_000,
        "active",
    )
    assert report.resets_at == "2026-12-01T00:00:00.000Z"


def test_rotated_key_is_refused_at_once_by_a_process_that_cached_it(
    stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN two processes (two meters) that both admitted the key
    key = create_key(store, email="rot@example.com", plan="pro")
    first, second = Meter(stores.admission, clock=clock), Meter(stores.admission, clock=clock)
    admit(first, key)
    admit(second, key)
    # WHEN the key is rotated
    store.replace_key(account_of(store, key), hash_key(key_from_random("n" * 43)))
    # THEN both refuse it on its next use
    for meter in (first, second):
        with pytest.raises(Unauthorized):
            admit(meter, key)
    assert admit(first, key_from_random("n" * 43)).quota_remaining == 9_997  # usage carries over to the new key


def test_concurrent_month_starts_count_both(stores: Stores, store: AccountStore, clock: Clock) -> None:
    key = create_key(store, email="ms@example.com", plan="pro")
    first, second = Meter(stores.admission, clock=clock), Meter(stores.admission, clock=clock)
    admit(first, key)
    admit(second, key)
    clock.advance(20)  # December: both processes believe the item is in November
    assert admit(first, key).state.used == 1
    assert admit(second, key).state.used == 2


class HotKeyStore(CountingStore):
    """A hot key seen through a store whose round trip (300 ms) is longer than the key's interval (200 ms):
    another process's request lands while each of this meter's writes is under way."""

    def __init__(self, inner: AdmissionStore, other: Meter, key: str, clock: Clock) -> None:
        super().__init__(inner)
        self.other, self.key, self.clock = other, key, clock

    def admit(self, attempt: Attempt) -> MeterState:
        self.clock.advance(0.001)
        admit(self.other, self.key, counted=False)
        try:
            return super().admit(attempt)
        finally:
            self.clock.advance(0.3)


def test_a_hot_key_is_admitted_in_two_writes_when_its_writes_race(
    stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a pro key (5 requests/s) whose every write races another process's request
    clock.set(datetime(2026, 11, 10, tzinfo=UTC))
    key = create_key(store, email="hot@example.com", plan="pro")
    hot = HotKeyStore(stores.admission, Meter(stores.admission, clock=clock), key, clock)
    meter = Meter(hot, clock=clock)
    admit(meter, key)
    for _ in range(5):
        hot.calls.clear()
        clock.advance(0.5)
        # WHEN it admits a request THEN the write that lost the race tells the next one to expect a busy bucket
        assert admit(meter, key).state.used >= 2
        assert hot.calls["admit"] <= 2


def test_lost_reply_of_an_applied_admission_is_read_back(stores: Stores, store: AccountStore, clock: Clock) -> None:
    faulty = FaultyStore(stores.admission, script=["ok", "lost"])
    meter = Meter(faulty, clock=clock)
    key = create_key(store, email="lost@example.com", plan="pro")
    admit(meter, key)
    # WHEN the admission applies and its reply is lost THEN it is read back and the request goes on, counted once
    admission = admit(meter, key)
    assert admission.state.used == 2
    assert meter.faults == {Fault.ADMISSION_REPLY_LOST_APPLIED: 1}


def test_admission_of_unknown_outcome_is_503_and_forgiven_not_given_back(
    stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a write that never arrived, though it looked like a lost reply
    faulty = FaultyStore(stores.admission, script=["ok", "unsent"])
    meter = Meter(faulty, clock=clock)
    key = create_key(store, email="unsent@example.com", plan="pro", quota=2)
    admit(meter, key)
    # WHEN the read-back cannot prove it applied THEN 503, nothing charged, no work done
    with pytest.raises(ServiceUnavailable, match="nothing was charged") as caught:
        admit(meter, key)
    assert caught.value.headers["Retry-After"] == "1"
    # AND the unit is forgiven (one less charged: the first request's, reported) but not given back:
    # the cap still counts it, so no request beyond the quota can get through
    state = stores.admission.read(account_of(store, key).account_id)
    assert state is not None and (state.used, state.forgiven, state.counted_in(state.period)) == (1, 1, 0)
    assert meter.faults == {Fault.ADMISSION_OUTCOME_UNKNOWN: 1}


def test_unavailable_store_fails_closed_without_charging(stores: Stores, store: AccountStore, clock: Clock) -> None:
    faulty = FaultyStore(stores.admission, script=["ok", "unavailable"])
    meter = Meter(faulty, clock=clock)
    key = create_key(store, email="down@example.com", plan="pro")
    admit(meter, key)
    with pytest.raises(ServiceUnavailable, match="not processed or counted"):
        admit(meter, key)
    assert stores.admission.read(account_of(store, key).account_id).used == 1  # type: ignore[union-attr]


def test_under_random_faults_usage_never_exceeds_successes_and_misses_at_most_the_reported(
    stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a store that throttles 5%, loses 5% of replies after applying and times out 2% before arriving
    faulty = FaultyStore(stores.admission, unavailable=0.05, lost=0.05, unsent=0.02, seed=11)
    meter = Meter(faulty, clock=clock)
    key = create_key(store, email="chaos@example.com", plan="business", quota=300)
    delivered = 0
    for n in range(500):
        clock.advance(0.01)
        try:
            admission = admit(meter, key)
        except (ServiceUnavailable, QuotaExceeded):
            continue
        if n % 10 == 0:  # 10% of requests fail after admission
            meter.refund(admission)
        else:
            delivered += 1
    shards = stores.admission.read_shards(account_of(store, key).account_id)
    assert len(shards) == 2  # a business key is spread over two items
    charged = sum(state.counted_in("2026-11") for state in shards)
    undercounts = sum(count for fault, count in meter.faults.items() if fault in UNDERCOUNT_FAULTS)
    assert meter.faults[Fault.SETTLE_FAILED] == 0
    assert delivered - undercounts <= charged <= delivered <= 300
    assert sum(faulty.injected.values()) > 30


def test_next_month_start_rolls_over_the_year() -> None:
    assert next_month_start(datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == datetime(2027, 1, 1, tzinfo=UTC)


def test_create_key_refuses_a_taken_email(store: AccountStore) -> None:
    create_key(store, email="dup@example.com", plan="pro")
    with pytest.raises(AccountExists):
        create_key(store, email="DUP@example.com", plan="pro")


def test_ensure_key_creates_then_updates_plan_and_quota(store: AccountStore) -> None:
    key = key_from_random("d" * 43)
    ensure_key(store, key=key, email="dev@example.com", plan="business")
    ensure_key(store, key=key, email="dev@example.com", plan="starter", quota=7)
    account = account_of(store, key)
    assert (account.plan, account.quota_override, limits_of(store, account).quota_monthly) == ("starter", 7, 7)


def test_the_admission_item_stays_within_one_write_unit() -> None:
    # GIVEN the largest admission item: every override in force (the address, customer and overrides themselves
    # are on the contact item), every slot used, the largest counts, every day of a 31-day month counted at the
    # largest count its quota of a trillion allows (Business volumes are a millionth of it), and a refund and a
    # forgiveness recorded
    from fileapi.metering.dynamo.items import (
        ADMISSION_READ,
        DAY_NAMES,
        fresh_meter_attributes,
        profile_attributes,
        slot_name,
    )
    from fileapi.metering.state import RECENT_SLOTS, TAG_CHARS
    from tests.dynamo_proxy import item_size

    account = Account(
        account_id=uuid.uuid4().hex,
        email="x" * 242 + "@example.com",
        plan="business",
        status="past_due",
        key_hash="f" * 64,
        customer_id="cus_" + "C" * 24,
        quota_override=10**12,
        sustained_override=123456.789,
        burst_override=10**9,
    )
    item = {"pk": {"S": f"ACCOUNT#{account.account_id}"}, "sk": {"S": "PROFILE"}}
    item |= profile_attributes(account, limits_of(memory_stores().accounts, account)) | fresh_meter_attributes()
    item |= {name: {"N": str(10**16)} for name in ("tat", "used", "forgiven", "prev_used", "prev_forgiven")}
    item |= {slot_name(slot): {"S": "a" * TAG_CHARS} for slot in range(RECENT_SLOTS)}
    item |= {"last_refund": {"S": "a" * TAG_CHARS}, "last_forgiven": {"S": "a" * TAG_CHARS}}
    item |= {name: {"N": str(10**12 - 1)} for name in DAY_NAMES}
    # THEN it holds admission attributes only, and is under 1 KB: every admission costs one write unit
    assert set(item) <= set(ADMISSION_READ)
    assert item_size(item) < 1024


def test_the_metering_doc_states_the_memory_times_the_code_uses() -> None:
    from pathlib import Path

    from fileapi.metering import cache

    doc = (Path(__file__).resolve().parents[3] / "docs" / "metering.md").read_text()
    for name in ("QUOTA_RECHECK_SECONDS", "INACTIVE_SECONDS", "UNKNOWN_KEY_SECONDS"):
        assert f"`{name}` ({getattr(cache, name)})" in doc
    for fault in Fault:
        assert f"| `{fault.value}` |" in doc


class LosingStore(CountingStore):
    """Its first `losses` admission writes are refused as if another request's write had landed first."""

    def __init__(self, inner: AdmissionStore, losses: int) -> None:
        super().__init__(inner)
        self.losses = losses

    def admit(self, attempt: Attempt) -> MeterState:
        if self.losses:
            self.losses -= 1
            self.calls["admit"] += 1
            raise Refused(self.read(attempt.account_id, shard=attempt.shard))
        return super().admit(attempt)


def test_writes_that_keep_losing_races_are_spread_by_a_random_pause(
    stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a Business key (two items, 5 ms interval each) whose first 5 admission writes each lose a race
    key = create_key(store, email="lockstep@example.com", plan="business")
    losing = LosingStore(stores.admission, losses=5)
    pauses: list[float] = []
    meter = Meter(losing, clock=clock, sleep=pauses.append)
    # WHEN it admits a request THEN it is admitted at the 6th write
    assert admit(meter, key).state.used == 1
    assert losing.calls["admit"] == 6
    # AND no pause came before the second write; each later write waited a random part of the interval
    assert len(pauses) == 4
    assert all(0 <= pause <= 0.005 for pause in pauses) and len(set(pauses)) == 4
