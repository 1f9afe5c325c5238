"""Keys of the earlier format (sk_live_ + 43 URL-safe characters, no checksum) keep working after the upgrade,
and a made-up one costs no store call once the set of those keys is sealed (fileapi.metering.legacy_keys)."""

from __future__ import annotations

import secrets
import uuid

import pytest

from fileapi.errors import Unauthorized
from fileapi.local import dynamo
from fileapi.metering.admin import create_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.dynamo.legacy_set import read_legacy_set
from fileapi.metering.dynamo.migrate import migrate_table
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS
from fileapi.metering.keys import (
    KEY_PREFIX,
    generate_key,
    hash_key,
    is_key,
    is_legacy_key,
    is_well_formed,
    parse_bearer,
)
from fileapi.metering.legacy_keys import RELOAD_SECONDS, prefix_of
from fileapi.metering.meter import Meter
from fileapi.metering.storage import Stores
from fileapi.storage.table import DynamoTable
from tests.metering_doubles import Clock, CountingStore, made_up_keys, put_earlier_format_account


def legacy_key() -> str:
    """A key as the earlier release made it."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


@pytest.fixture()
def fresh_table(dynamodb_endpoint: str) -> DynamoTable:
    """A table of its own (the set is sealed once per table)."""
    return dynamo.local_table(f"fileapi-legacy-{uuid.uuid4().hex[:8]}", dynamodb_endpoint)


def test_an_earlier_format_key_is_recognised_offline() -> None:
    key = legacy_key()
    assert (is_legacy_key(key), is_well_formed(key), is_key(key)) == (True, False, True)
    assert parse_bearer(f"Bearer {key}") == key


@pytest.mark.parametrize("value", [KEY_PREFIX + "a" * 42, KEY_PREFIX + "a" * 44, KEY_PREFIX + "a" * 42 + "!"])
def test_a_value_of_neither_format_is_refused_offline(value: str) -> None:
    assert not is_key(value)
    with pytest.raises(Unauthorized, match="invalid API key: a key is 'sk_live_' and 49 letters and digits"):
        parse_bearer(f"Bearer {value}")


def test_an_earlier_format_key_is_admitted_with_a_deprecation_header(stores: Stores) -> None:
    key = legacy_key()
    put_earlier_format_account(stores.accounts, key)
    admission = Meter(stores.admission).admit(f"Bearer {key}", counted=True, request_id="r1")
    assert admission.legacy_key is True
    assert {name: admission.headers()[name] for name in DEPRECATED_KEY_HEADERS} == DEPRECATED_KEY_HEADERS


def test_a_current_key_has_no_deprecation_header(stores: Stores) -> None:
    key = create_key(stores.accounts, email="new@example.com", plan="pro")
    headers = Meter(stores.admission).admit(f"Bearer {key}", counted=True, request_id="r1").headers()
    assert not set(DEPRECATED_KEY_HEADERS) & set(headers)


def test_an_unknown_earlier_format_key_is_looked_up_once_before_the_set_is_sealed(fresh_table: DynamoTable) -> None:
    fresh = dynamo_stores(fresh_table)
    counting = CountingStore(fresh.admission)
    meter = Meter(counting)
    key = legacy_key()
    for _ in range(3):
        with pytest.raises(Unauthorized, match="invalid API key"):
            meter.admit(f"Bearer {key}", counted=True, request_id="r")
    # the table has no set (not migrated): the key is looked up, and the negative answer remembered
    assert dict(counting.calls) == {"legacy_key_prefixes": 1, "find_account_id": 1}


def test_made_up_keys_of_either_format_cost_no_store_call(fresh_table: DynamoTable) -> None:
    fresh = dynamo_stores(fresh_table)
    # GIVEN a migrated table holding an earlier-format key, and a process that has loaded the set once
    key = legacy_key()
    put_earlier_format_account(fresh.accounts, key)
    assert migrate_table(fresh_table).legacy_keys == 1
    counting = CountingStore(fresh.admission)
    meter = Meter(counting)
    meter.admit(f"Bearer {key}", counted=True, request_id="r0")
    assert counting.calls["legacy_key_prefixes"] == 1
    counting.calls.clear()
    # WHEN 100 made-up keys of each format are sent
    made_up = made_up_keys(100, seed=36)
    for made_up_key in made_up:
        with pytest.raises(Unauthorized):
            meter.admit(f"Bearer {made_up_key}", counted=True, request_id="r")
    # THEN none costs a store call, and the real key still does its one write
    assert len(made_up) == 200 and counting.total == 0
    meter.admit(f"Bearer {key}", counted=True, request_id="r1")
    assert dict(counting.calls) == {"admit": 1}


def test_the_set_is_sealed_once_and_loses_a_key_rotated_away(fresh_table: DynamoTable) -> None:
    fresh = dynamo_stores(fresh_table)
    # GIVEN two earlier-format accounts and a current one, migrated
    keys = [legacy_key(), legacy_key()]
    accounts = [put_earlier_format_account(fresh.accounts, key) for key in keys]
    create_key(fresh.accounts, email=f"{uuid.uuid4().hex}@example.com", plan="pro")

    assert migrate_table(fresh_table).legacy_keys == 3  # every link present then (a current key's costs nothing)
    assert migrate_table(fresh_table).legacy_keys is None  # sealed: a second run keeps it
    # WHEN the first key is rotated away
    fresh.accounts.replace_key(accounts[0], hash_key(generate_key()))
    # THEN its prefix left the set; the other is still there
    prefixes = read_legacy_set(fresh_table)
    assert prefixes is not None and prefix_of(hash_key(keys[0])) not in prefixes
    assert prefix_of(hash_key(keys[1])) in prefixes
    # AND a process that loads the set now refuses the old key without a lookup
    counting = CountingStore(fresh.admission)
    with pytest.raises(Unauthorized, match="invalid API key"):
        Meter(counting).admit(f"Bearer {keys[0]}", counted=True, request_id="r")
    assert dict(counting.calls) == {"legacy_key_prefixes": 1}


def test_a_process_with_a_stale_set_loads_it_again(fresh_table: DynamoTable) -> None:
    fresh = dynamo_stores(fresh_table)
    # GIVEN a process that loaded the set before another process rotated a key away
    keys = [legacy_key(), legacy_key()]
    accounts = [put_earlier_format_account(fresh.accounts, key) for key in keys]
    migrate_table(fresh_table)
    clock = Clock(1_800_000_000_000_000)
    counting = CountingStore(fresh.admission)
    meter = Meter(counting, clock=clock)
    meter.admit(f"Bearer {keys[1]}", counted=True, request_id="r0")
    fresh.accounts.replace_key(accounts[0], hash_key(generate_key()))
    counting.calls.clear()
    # WHEN the old key comes, once now and once after the reload interval
    for _ in range(2):
        with pytest.raises(Unauthorized, match="invalid API key"):
            meter.admit(f"Bearer {keys[0]}", counted=True, request_id="r")
        clock.advance(RELOAD_SECONDS + 1)
    # THEN it cost one lookup (remembered as unknown for a while), and the set was read again
    assert counting.calls["find_account_id"] == 1
    with pytest.raises(Unauthorized, match="invalid API key"):
        meter.admit(f"Bearer {keys[0]}", counted=True, request_id="r")
    assert dict(counting.calls) == {"find_account_id": 1, "legacy_key_prefixes": 1}


def test_no_key_of_the_earlier_format_is_issued_any_more(fresh_table: DynamoTable) -> None:
    fresh = dynamo_stores(fresh_table)
    with pytest.raises(ValueError, match="earlier format are no longer issued"):
        create_key(fresh.accounts, email="old@example.com", plan="pro", key=legacy_key())
