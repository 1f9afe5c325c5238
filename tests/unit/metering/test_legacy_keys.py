"""Keys of the earlier format (sk_live_ + 43 URL-safe characters, no checksum) keep working after the upgrade."""

from __future__ import annotations

import secrets

import pytest

from fileapi.errors import Unauthorized
from fileapi.metering.admin import create_key
from fileapi.metering.headers import DEPRECATED_KEY_HEADERS
from fileapi.metering.keys import KEY_PREFIX, is_key, is_legacy_key, is_well_formed, parse_bearer
from fileapi.metering.meter import Meter
from fileapi.metering.storage import Stores
from tests.metering_doubles import CountingStore


def legacy_key() -> str:
    """A key as the earlier release made it."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def test_an_earlier_format_key_is_recognised_offline() -> None:
    key = legacy_key()
    assert (is_legacy_key(key), is_well_formed(key), is_key(key)) == (True, False, True)
    assert parse_bearer(f"Bearer {key}") == key


@pytest.mark.parametrize("value", [KEY_PREFIX + "a" * 42, KEY_PREFIX + "a" * 44, KEY_PREFIX + "a" * 42 + "!"])
def test_a_value_of_neither_format_is_refused_offline(value: str) -> None:
    assert not is_key(value)
    with pytest.raises(Unauthorized, match="malformed Authorization header"):
        parse_bearer(f"Bearer {value}")


def test_an_earlier_format_key_is_admitted_with_a_deprecation_header(stores: Stores) -> None:
    key = legacy_key()
    create_key(stores.accounts, email="old@example.com", plan="pro", key=key)
    admission = Meter(stores.admission).admit(f"Bearer {key}", counted=True, request_id="r1")
    assert admission.legacy_key is True
    assert {name: admission.headers()[name] for name in DEPRECATED_KEY_HEADERS} == DEPRECATED_KEY_HEADERS


def test_a_current_key_has_no_deprecation_header(stores: Stores) -> None:
    key = create_key(stores.accounts, email="new@example.com", plan="pro")
    headers = Meter(stores.admission).admit(f"Bearer {key}", counted=True, request_id="r1").headers()
    assert not set(DEPRECATED_KEY_HEADERS) & set(headers)


def test_an_unknown_earlier_format_key_is_looked_up_once(stores: Stores) -> None:
    counting = CountingStore(stores.admission)
    meter = Meter(counting)
    key = legacy_key()
    for _ in range(3):
        with pytest.raises(Unauthorized, match="invalid API key"):
            meter.admit(f"Bearer {key}", counted=True, request_id="r")
    assert counting.total == 1  # the negative answer is remembered
