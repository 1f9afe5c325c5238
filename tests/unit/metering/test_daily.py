"""The count of each day of the month, kept in the admission's own write, against the in-memory and the DynamoDB
stores alike: admissions count on their UTC day, refunds and forgiveness take the unit back from that day (across
midnight and the month's turn), the month's first request starts the days afresh, spread keys add their items'
days, and `daily` always adds up to `used_this_month`."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from fileapi.errors import QuotaExceeded, RateLimited
from fileapi.metering.admin import change_account, create_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.relayout import shard_operation
from fileapi.metering.keys import hash_key
from fileapi.metering.meter import Admission, Meter
from fileapi.metering.plans import contract_plan
from fileapi.metering.resharding import Action, ShardChange
from fileapi.metering.state import DAYS, MeterState, SettleTarget, settle_target
from fileapi.metering.storage import AccountStore, Stores
from fileapi.metering.usage import DayUsage, usage_report
from fileapi.storage.table import DynamoTable, TransactionCanceled
from tests.metering_doubles import Clock, CountingStore


def at(year: int, month: int, day: int, hour: int, minute: int = 0, second: int = 0, micro: int = 0) -> int:
    """Epoch microseconds of a UTC instant."""
    return int(datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC).timestamp() * 1_000_000)


@pytest.fixture()
def clock() -> Clock:
    return Clock(at(2026, 11, 3, 9, 0))


@pytest.fixture()
def meter(stores: Stores, clock: Clock) -> Meter:
    return Meter(stores.admission, clock=clock, sleep=lambda _: None)


def admit(meter: Meter, key: str, *, counted: bool = True) -> Admission:
    return meter.admit(f"Bearer {key}", counted=counted, request_id=uuid.uuid4().hex)


def daily(meter: Meter, key: str) -> list[tuple[str, int]]:
    """The key's `daily` as /v1/usage answers it (one uncounted request)."""
    report = meter.usage(admit(meter, key, counted=False))
    assert sum(day.requests for day in report.daily) == report.used_this_month
    return [(day.date, day.requests) for day in report.daily]


def test_admissions_count_on_their_utc_day_and_every_day_so_far_is_listed(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    key = create_key(store, email="days@example.com", plan="pro")
    for _ in range(2):
        admit(meter, key)
    clock.set(datetime(2026, 11, 5, 23, 59, 59, tzinfo=UTC))
    for _ in range(3):
        admit(meter, key)
    clock.set(datetime(2026, 11, 7, 8, tzinfo=UTC))
    assert daily(meter, key) == [
        ("2026-11-01", 0),
        ("2026-11-02", 0),
        ("2026-11-03", 2),
        ("2026-11-04", 0),
        ("2026-11-05", 3),
        ("2026-11-06", 0),
        ("2026-11-07", 0),
    ]


def test_a_warm_admission_and_its_day_are_still_one_call(stores: Stores, store: AccountStore, clock: Clock) -> None:
    key = create_key(store, email="one@example.com", plan="scale")
    counting = CountingStore(stores.admission)
    meter = Meter(counting, clock=clock)
    admit(meter, key)
    counting.calls.clear()
    for _ in range(30):  # a day's count, then the next day's: each still one write
        clock.advance(3600)
        admit(meter, key)
    assert dict(counting.calls) == {"admit": 30}


def test_a_refund_after_midnight_takes_the_unit_from_its_admissions_day(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a request admitted at 23:59:59.9 on the 5th and one at 00:00:00.1 on the 6th
    key = create_key(store, email="midnight@example.com", plan="pro")
    clock.set(datetime(2026, 11, 5, 23, 59, 59, 900_000, tzinfo=UTC))
    late = admit(meter, key)
    clock.set(datetime(2026, 11, 6, 0, 0, 0, 100_000, tzinfo=UTC))
    admit(meter, key)
    # WHEN the first fails after midnight and is refunded
    clock.advance(0.1)
    refunded = meter.refund(late)
    # THEN the 5th goes back to 0 and the 6th keeps its request
    assert late.day == 5 and refunded.state.days[4:6] == (0, 1)
    assert daily(meter, key)[4:] == [("2026-11-05", 0), ("2026-11-06", 1)]


def test_a_refund_across_the_months_turn_leaves_the_new_months_days_alone(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a request admitted at 23:59:59.9 on 30 November, and December started by another at 00:00:00.1
    key = create_key(store, email="turn@example.com", plan="pro")
    clock.set(datetime(2026, 11, 30, 23, 59, 59, 900_000, tzinfo=UTC))
    late = admit(meter, key)
    clock.set(datetime(2026, 12, 1, 0, 0, 0, 100_000, tzinfo=UTC))
    admit(meter, key)
    # WHEN the November request is refunded
    after = meter.refund(late)
    # THEN November's count gives it back and December's 1st keeps its one request
    assert (after.state.prev_period, after.state.prev_used) == ("2026-11", 0)
    assert after.state.days[0] == 1 and sum(after.state.days) == 1
    assert daily(meter, key) == [("2026-12-01", 1)]


def test_the_first_request_of_a_month_starts_the_days_afresh(meter: Meter, store: AccountStore, clock: Clock) -> None:
    key = create_key(store, email="fresh@example.com", plan="pro")
    clock.set(datetime(2026, 11, 30, 12, tzinfo=UTC))
    admit(meter, key)
    clock.set(datetime(2026, 12, 2, 12, tzinfo=UTC))
    first = admit(meter, key)
    assert first.state.days == (0, 1, *(0,) * (DAYS - 2))
    assert daily(meter, key) == [("2026-12-01", 0), ("2026-12-02", 1)]


def test_a_month_started_by_an_uncounted_request_has_no_day_counted(
    meter: Meter, store: AccountStore, clock: Clock
) -> None:
    key = create_key(store, email="selfservice@example.com", plan="pro")
    clock.set(datetime(2026, 11, 30, 12, tzinfo=UTC))
    admit(meter, key)
    clock.set(datetime(2026, 12, 1, 12, tzinfo=UTC))
    assert admit(meter, key, counted=False).state.days == (0,) * DAYS
    assert daily(meter, key) == [("2026-12-01", 0)]


def test_a_forgiven_unit_leaves_its_day(meter: Meter, stores: Stores, store: AccountStore, clock: Clock) -> None:
    key = create_key(store, email="forgive@example.com", plan="pro")
    admission = admit(meter, key)
    clock.advance(86_400)
    admit(meter, key)
    meter.settler.forgive(admission.account_id, admission.period, admission.request_id, 0, day=admission.day)
    assert daily(meter, key)[2:] == [("2026-11-03", 0), ("2026-11-04", 1)]


def test_a_day_run_out_gives_back_from_the_nearest_day_before(
    meter: Meter, stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN one request on the 3rd and one on the 5th, and on the 5th a lost admission that had not applied,
    # forgiven: it took the 5th's unit, which the other request of the 5th holds
    key = create_key(store, email="runout@example.com", plan="pro")
    admit(meter, key)
    clock.set(datetime(2026, 11, 5, 9, tzinfo=UTC))
    fifth = admit(meter, key)
    meter.settler.forgive(fifth.account_id, fifth.period, "never-applied", 0, day=5)
    # WHEN the 5th's request fails and is refunded
    after = meter.refund(fifth)
    # THEN the unit comes off the 3rd: no day goes below 0, and the days still add up to the charge
    assert after.state.days[2:5] == (0, 0, 0)
    assert (after.state.used, after.state.forgiven) == (1, 1)
    assert daily(meter, key)[2:] == [("2026-11-03", 0), ("2026-11-04", 0), ("2026-11-05", 0)]


def test_where_a_unit_is_given_back() -> None:
    state = MeterState("a", "h", "active", "pro", 10, 1, 1, 0, "2026-11", used=4, days=(0, 2, 0, 1, *(0,) * 27))
    assert settle_target(state, "2026-11", 4, refund=True) == SettleTarget(closed=False, day=4)
    assert settle_target(state, "2026-11", 3, refund=True) == SettleTarget(closed=False, day=2)
    assert settle_target(state, "2026-11", 1, refund=False) == SettleTarget(closed=False, day=2)
    empty = replace(state, used=2, days=(0,) * DAYS)  # two units counted before the item kept days
    assert settle_target(empty, "2026-11", 4, refund=True) == SettleTarget(closed=False)
    assert settle_target(replace(empty, forgiven=2), "2026-11", 4, refund=True) is None  # nothing charged left
    assert settle_target(replace(state, used=0), "2026-11", 4, refund=True) is None
    closed = replace(state, period="2026-12", prev_period="2026-11", prev_used=1)
    assert settle_target(closed, "2026-11", 30, refund=True) == SettleTarget(closed=True)
    assert settle_target(replace(closed, prev_used=0), "2026-11", 30, refund=True) is None
    assert settle_target(closed, "2026-10", 30, refund=False) is None


def test_a_spread_keys_items_add_their_days(meter: Meter, stores: Stores, store: AccountStore) -> None:
    key = create_key(store, email="spread@example.com", plan="business")
    admissions = [admit(meter, key) for _ in range(6)]
    assert {admission.shard for admission in admissions} == {0, 1}
    assert daily(meter, key)[2] == ("2026-11-03", 6)


def test_a_removed_items_days_move_to_the_first(
    meter: Meter, stores: Stores, store: AccountStore, clock: Clock
) -> None:
    # GIVEN a Business key (two items) used on the 3rd and the 4th
    key = create_key(store, email="moved@example.com", plan="business")
    for _ in range(4):
        admit(meter, key)
    clock.set(datetime(2026, 11, 4, 9, tzinfo=UTC))
    for _ in range(4):
        admit(meter, key)
    # WHEN it moves to a plan on one item
    account = store.get_account_by_key(hash_key(key))
    assert account is not None
    change_account(store, replace(account, plan="pro"), now=clock() / 1e6)
    # THEN the one item holds every day's count
    (item,) = stores.admission.read_shards(account.account_id)
    assert (item.days[2], item.days[3], item.used) == (4, 4, 8)
    assert daily(meter, key)[2:] == [("2026-11-03", 4), ("2026-11-04", 4)]


def test_a_day_counted_by_an_instance_whose_clock_turned_midnight_first_is_listed() -> None:
    # GIVEN an item whose 6th has a request (another instance's clock), reported at 23:59:59.99 on the 5th
    state = MeterState("a", "h", "active", "pro", 10, 1, 1, 0, "2026-11", used=1, days=(0,) * 5 + (1,) + (0,) * 25)
    report = usage_report([state], now_us=at(2026, 11, 5, 23, 59, 59, 990_000))
    # THEN the 6th is listed, and the days add up
    assert report.daily[-2:] == (DayUsage("2026-11-05", 0), DayUsage("2026-11-06", 1))
    assert report.used_this_month == 1 and report.resets_at == "2026-12-01T00:00:00.000Z"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_daily_adds_up_to_used_this_month_over_random_admissions_refunds_and_shards(
    stores: Stores, store: AccountStore, seed: int
) -> None:
    # GIVEN a key on one item and a key spread over two, used from 28 November to 3 December on a simulated clock:
    # admissions, refunds of earlier requests (some after midnight, some after the month's turn), uncounted
    # requests, and plan changes that lay the spread key out again
    rng = random.Random(seed)
    clock = Clock(at(2026, 11, 28, 0, 0))
    meter = Meter(stores.admission, clock=clock, sleep=lambda _: None)
    keys = {plan: create_key(store, email=f"{plan}-{seed}@example.com", plan=plan) for plan in ("pro", "business")}
    expected: dict[str, Counter[str]] = {plan: Counter() for plan in keys}  # charged per date
    pending: list[tuple[str, Admission]] = []
    end = at(2026, 12, 3, 23, 0)
    while clock() < end:
        clock.advance(rng.choice([0.2, 1, 60, 3600, 5 * 3600]))
        plan = rng.choice(list(keys))
        roll = rng.random()
        try:
            if roll < 0.6:
                admission = admit(meter, keys[plan])
                expected[plan][date_of(admission)] += 1
                pending.append((plan, admission))
            elif roll < 0.85 and pending:
                plan, admission = pending.pop(rng.randrange(len(pending)))
                meter.refund(admission)
                expected[plan][date_of(admission)] -= 1
            elif roll < 0.95:
                admit(meter, keys[plan], counted=False)
            else:
                account = store.get_account_by_key(hash_key(keys["business"]))
                assert account is not None
                change_account(store, replace(account, plan=rng.choice(["business", "scale"])), now=clock() / 1e6)
                meter.account_changed(account.account_id)
                # a refund aimed at an item the change removed finds nothing to give back: none is tried
                pending = [(plan, admission) for plan, admission in pending if plan != "business"]
        except (RateLimited, QuotaExceeded):
            continue
        # THEN after every step, each key's daily adds up to used_this_month and matches what was charged per day
        for plan, key in keys.items():
            account = store.get_account_by_key(hash_key(key))
            assert account is not None
            report = usage_report(stores.admission.read_shards(account.account_id), now_us=clock())
            month = report.period
            charged = {date: count for date, count in expected[plan].items() if date.startswith(month) and count}
            assert {day.date: day.requests for day in report.daily if day.requests} == charged
            assert sum(day.requests for day in report.daily) == report.used_this_month
            assert [day.date for day in report.daily][:1] == [f"{month}-01"]
    assert {month for plan in expected for month in (date[:7] for date in expected[plan])} == {"2026-11", "2026-12"}


def date_of(admission: Admission) -> str:
    return datetime.fromtimestamp(admission.bucket.now_us / 1e6, tz=UTC).strftime("%Y-%m-%d")


def test_a_plan_change_never_moves_days_that_changed_since_they_were_read(dynamo_table: DynamoTable) -> None:
    # GIVEN the second item of a Business key with a request on the 3rd and one on the 5th, as read
    stores = dynamo_stores(dynamo_table)
    key = create_key(stores.accounts, email="stale@example.com", plan="business")
    clock = Clock(at(2026, 11, 3, 9))
    meter = Meter(stores.admission, clock=clock, sleep=lambda _: None)
    on_second: list[Admission] = []
    while len(on_second) < 2:
        admission = admit(meter, key)
        if admission.shard == 1:
            on_second.append(admission)
            clock.set(datetime(2026, 11, 5, 9, tzinfo=UTC))
    account = stores.accounts.get_account_by_key(hash_key(key))
    assert account is not None
    seen = stores.admission.read(account.account_id, shard=1)
    assert seen is not None and (seen.used, seen.days[2], seen.days[4]) == (2, 1, 1)
    # WHEN the 3rd's request is refunded and another admitted on the 5th: the same count, other days
    meter.refund(on_second[0])
    while admit(meter, key).shard != 1:
        pass
    # THEN removing the item as read is refused: its days would move wrong
    limits = account.limits_under(contract_plan("pro"))
    removal = shard_operation(account, limits, ShardChange(1, Action.REMOVE, 0, 0, seen=seen), "2026-11")
    with pytest.raises(TransactionCanceled):
        dynamo_table.transact([removal])
