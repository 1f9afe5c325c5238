"""An admission reads the key of its Authorization header as `parse_bearer` and `hash_key` do, the first time and
every time after (when the key's checks are remembered by its hash): the same hash, the same format, and the same
refusal for every header that is not a key."""

from __future__ import annotations

import pytest

from fileapi.errors import Unauthorized
from fileapi.metering.keys import KEY_PREFIX, generate_key, hash_key, is_legacy_key, key_from_random, parse_bearer
from fileapi.metering.meter import MAX_CHECKED_KEYS, Meter
from tests.memory_stores import memory_stores

KEY = key_from_random("Z" * 43)  # one fixed key: the ids of the parametrized cases are the same in every worker
LEGACY = KEY_PREFIX + "A-b_" * 10 + "xyz"
HEADERS = [
    f"Bearer {KEY}",
    f"bearer {KEY}",
    f"BEARER  {KEY}",
    f"Bearer {KEY} ",
    f" Bearer {KEY}",
    f"Bearer\t{KEY}",
    f"Bearer {KEY}\n",
    f"Bearer {LEGACY}",
    f"Bearer {LEGACY[:-1]}",
    f"Bearer {KEY[:-1]}",
    f"Bearer {KEY[:-1]}{'A' if KEY[-1] != 'A' else 'B'}",
    f"Bearer {KEY} {KEY}",
    f"Basic {KEY}",
    KEY,
    "Bearer ",
    "Bearer",
    "",
]


def expected(header: str | None) -> tuple[str, bool] | str:
    try:
        key = parse_bearer(header)
    except Unauthorized as refusal:
        return refusal.message
    return hash_key(key), is_legacy_key(key)


def presented(meter: Meter, header: str | None) -> tuple[str, bool] | str:
    try:
        return meter._presented(header)
    except Unauthorized as refusal:
        return refusal.message


@pytest.mark.parametrize("header", [*HEADERS, None], ids=repr)
def test_a_header_is_read_as_parse_bearer_reads_it_each_time(header: str | None) -> None:
    meter = Meter(memory_stores().admission)
    for other in HEADERS:  # every other header first: whatever was remembered, the answer is the same
        presented(meter, other)
    assert [presented(meter, header) for _ in range(3)] == [expected(header)] * 3


def test_the_remembered_keys_are_bounded() -> None:
    meter = Meter(memory_stores().admission)
    for _ in range(MAX_CHECKED_KEYS + 5):
        header = f"Bearer {generate_key()}"
        assert presented(meter, header) == expected(header)
    assert 0 < len(meter._checked) <= MAX_CHECKED_KEYS
