"""Shard placement: which item a request goes to, quota moved between items, the headers' view."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fileapi.metering import placement
from fileapi.metering.admin import create_key
from fileapi.metering.cache import KeyEntry
from fileapi.metering.keys import hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.months import MICROS
from fileapi.metering.state import MeterState
from fileapi.metering.storage import Stores

NOW_US = int(datetime(2026, 11, 10, 12, tzinfo=UTC).timestamp()) * MICROS
PERIOD = "2026-11"


def item(shard: int, *, shards: int = 3, tat_us: int = 0, quota: int = 100, used: int = 0) -> MeterState:
    """Item `shard` of a key spread over `shards`: 10 tokens refilled one per 100 ms, counting November."""
    return MeterState(
        account_id="a1",
        key_hash="h",
        status="active",
        plan="business",
        quota=quota,
        interval_us=100_000,
        burst=10,
        tat_us=tat_us,
        period=PERIOD,
        used=used,
        shard=shard,
        shards=shards,
        base_quota=100,
        plan_quota=100 * shards,
    )


def entry_of(*states: MeterState, shards: int = 3) -> KeyEntry:
    entry = KeyEntry("a1", shards=shards)
    entry.states = {state.shard: state for state in states}
    return entry


def test_requests_go_to_the_shards_in_turn_skipping_one_out_of_tokens(stores: Stores) -> None:
    entry = entry_of(item(0), item(1), item(2))
    entry.rate_blocked_until_us[1] = NOW_US + 50_000
    picked = [placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True) for _ in range(4)]
    assert picked == [0, 2, 0, 2]
    assert entry.cursor == 4


def test_asking_whether_a_shard_is_open_does_not_move_the_turn(stores: Stores) -> None:
    entry = entry_of(item(0), item(1), item(2))
    entry.cursor = 1
    assert placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True, advance=False) == 1
    assert entry.cursor == 1


def test_a_dry_shard_is_skipped_only_for_counted_requests(stores: Stores) -> None:
    entry = entry_of(item(0), item(1, used=100, quota=100), shards=2)
    entry.quota_dry[1] = PERIOD
    entry.quota_recheck_at_us = NOW_US + 30 * MICROS
    counted = [placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True) for _ in range(2)]
    free = [placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=False) for _ in range(2)]
    assert counted == [0, 0]
    assert free == [0, 1]


def test_when_every_shard_is_out_of_tokens_none_is_picked_and_the_wait_is_the_earliest(stores: Stores) -> None:
    entry = entry_of(item(0), item(1), item(2))
    entry.rate_blocked_until_us = {0: NOW_US + 500, 1: NOW_US + 300, 2: NOW_US + 900}
    assert placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True) is None
    assert placement.rate_wait_us(entry, NOW_US) == 300
    assert placement.rate_wait_us(entry, NOW_US + 1_000) is None


def test_quota_follows_the_tokens_from_a_blocked_shard_to_a_dry_one(stores: Stores) -> None:
    # GIVEN a business key (two items) whose month has started on both, with 5 + 5 of a quota of 10
    key = create_key(stores.accounts, email="shift@example.com", plan="business", quota=10)
    meter = Meter(stores.admission, clock=lambda: NOW_US)
    for request in range(2):
        meter.admit(f"Bearer {key}", counted=False, request_id=f"start-{request}")
    account = stores.accounts.get_account_by_key(hash_key(key))
    assert account is not None
    first, second = stores.admission.read_shards(account.account_id)
    # AND this process believes the first out of tokens and the second out of quota
    entry = entry_of(first, second, shards=2)
    entry.rate_blocked_until_us[0] = NOW_US + 50_000
    entry.quota_dry[1] = PERIOD
    entry.quota_recheck_at_us = NOW_US + 30 * MICROS
    # WHEN a counted request is placed
    chosen = placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True)
    # THEN half of the first item's quota moved to the second, which takes the request
    assert chosen == 1
    assert [state.quota for state in stores.admission.read_shards(account.account_id)] == [3, 7]
    assert (entry.states[0].quota, entry.states[1].quota) == (3, 7)
    assert 1 not in entry.quota_dry


def test_a_quota_move_the_store_refuses_clears_the_stale_belief(stores: Stores) -> None:
    # GIVEN a belief in two items of an account the store does not have
    entry = entry_of(item(0, quota=6), item(1), shards=2)
    entry.rate_blocked_until_us[0] = NOW_US + 50_000
    entry.quota_dry[1] = PERIOD
    entry.quota_recheck_at_us = NOW_US + 30 * MICROS
    # WHEN quota is to move THEN nothing is picked, and the first item is no longer believed blocked
    assert placement.pick(stores.admission, entry, NOW_US, PERIOD, counted=True) is None
    assert entry.rate_blocked_until_us == {}


def test_the_view_of_a_key_on_one_item_is_exact() -> None:
    state = item(0, shards=1, tat_us=NOW_US + 300_000, used=40)
    view = placement.key_view(entry_of(state, shards=1), NOW_US, PERIOD)
    # the TAT 0.3 s ahead: 3 of 10 tokens taken, full again in 0.3 s (1 whole second); empty refills in 1 s
    assert (view.limit, view.remaining, view.reset_seconds, view.window_seconds) == (10, 7, 1, 1)
    assert view.quota_remaining == 60


def test_the_view_of_a_spread_key_counts_an_unseen_shard_as_full() -> None:
    entry = entry_of(item(0, tat_us=NOW_US + 300_000, used=40), item(2, used=100))
    view = placement.key_view(entry, NOW_US, PERIOD)
    assert (view.limit, view.remaining, view.quota_remaining) == (30, 7 + 10 + 10, 60 + 100 + 0)


@pytest.mark.parametrize("shard", [1, 5])
def test_an_unseen_shard_is_guessed_full_from_the_first(shard: int) -> None:
    guess = placement.unseen(item(0, tat_us=NOW_US, used=40, quota=70), shard)
    assert (guess.shard, guess.tat_us, guess.used, guess.forgiven, guess.quota) == (shard, 0, 0, 0, 100)
    assert (guess.interval_us, guess.burst, guess.period) == (100_000, 10, PERIOD)
