"""Idempotency-Key claims (fileapi.idempotency): one conditional write; the same request gets the same answer,
another a 422, the same one in flight a 409; large answers are kept in the bucket."""

from __future__ import annotations

import pytest

from fileapi.errors import IdempotencyInFlight, IdempotencyKeyReused, InvalidInput
from fileapi.file_services import FileServices
from fileapi.idempotency import (
    LEASE_SECONDS,
    MAX_ITEM_BODY_BYTES,
    RETENTION_SECONDS,
    Claim,
    IdempotencyStore,
    Stored,
    fingerprint,
)
from fileapi.storage.table import DynamoTable

NOW = 1_800_000_000.0
REQUEST = fingerprint("post", "/v1/pdf/split", [("ranges", "1-2")], "ab" * 32)
OTHER = fingerprint("post", "/v1/pdf/split", [("ranges", "1-3")], "ab" * 32)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def keys(table: DynamoTable, files: FileServices, clock: Clock) -> IdempotencyStore:
    return IdempotencyStore(table, files.uploads.s3, bucket=files.settings.bucket, clock=clock)


def _claimed(result: Claim | Stored) -> Claim:
    assert isinstance(result, Claim)
    return result


def test_same_key_and_request_gets_the_stored_answer(keys: IdempotencyStore) -> None:
    claim = _claimed(keys.claim("acct-1", "key-a", REQUEST))
    keys.complete(
        claim, Stored(status=200, headers=(("Content-Type", "application/json"), ("X-Other", "no")), body=b"{}")
    )
    assert keys.claim("acct-1", "key-a", REQUEST) == Stored(
        status=200, headers=(("Content-Type", "application/json"),), body=b"{}"
    )


def test_an_answer_marked_no_store_keeps_no_body(keys: IdempotencyStore) -> None:
    claim = _claimed(keys.claim("acct-1", "key-secret", REQUEST))
    answer = Stored(status=200, headers=(("Cache-Control", "no-store"),), body=b'{"api_key": "sk_live_..."}')
    keys.complete(claim, answer)
    assert keys.claim("acct-1", "key-secret", REQUEST) == Stored(status=200, headers=(("Cache-Control", "no-store"),))


def test_same_key_with_another_request_is_refused(keys: IdempotencyStore) -> None:
    keys.complete(_claimed(keys.claim("acct-1", "key-b", REQUEST)), Stored(status=200, body=b"x"))
    with pytest.raises(IdempotencyKeyReused):
        keys.claim("acct-1", "key-b", OTHER)


def test_a_request_in_flight_is_409_with_retry_after(keys: IdempotencyStore, clock: Clock) -> None:
    _claimed(keys.claim("acct-1", "key-c", REQUEST))
    clock.now += 10
    with pytest.raises(IdempotencyInFlight) as busy:
        keys.claim("acct-1", "key-c", REQUEST)
    assert busy.value.headers["Retry-After"] == str(LEASE_SECONDS - 10)


def test_a_claim_past_its_lease_is_taken_over(keys: IdempotencyStore, clock: Clock) -> None:
    _claimed(keys.claim("acct-1", "key-d", REQUEST))
    clock.now += LEASE_SECONDS
    assert _claimed(keys.claim("acct-1", "key-d", REQUEST)).claimed_at == int(clock.now)


def test_a_released_key_can_be_sent_again(keys: IdempotencyStore) -> None:
    keys.release(_claimed(keys.claim("acct-1", "key-e", REQUEST)))
    _claimed(keys.claim("acct-1", "key-e", OTHER))


def test_keys_are_kept_24_hours(keys: IdempotencyStore, clock: Clock) -> None:
    keys.complete(_claimed(keys.claim("acct-1", "key-f", REQUEST)), Stored(status=200, body=b"x"))
    clock.now += RETENTION_SECONDS - 1
    assert isinstance(keys.claim("acct-1", "key-f", REQUEST), Stored)
    clock.now += 1
    _claimed(keys.claim("acct-1", "key-f", OTHER))


def test_keys_of_two_accounts_are_separate(keys: IdempotencyStore) -> None:
    keys.complete(_claimed(keys.claim("acct-1", "key-g", REQUEST)), Stored(status=200, body=b"x"))
    _claimed(keys.claim("acct-2", "key-g", OTHER))


def test_a_large_answer_is_kept_in_the_bucket_and_given_back_whole(keys: IdempotencyStore) -> None:
    claim = _claimed(keys.claim("acct-1", "key-h", REQUEST))
    body = bytes(range(256)) * (MAX_ITEM_BODY_BYTES // 256 + 1)
    keys.complete(claim, Stored(status=200, headers=(("Content-Type", "application/pdf"),), body=body))
    assert keys.claim("acct-1", "key-h", REQUEST) == Stored(
        status=200, headers=(("Content-Type", "application/pdf"),), body=body
    )


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_malformed_keys_are_refused(keys: IdempotencyStore, key: str) -> None:
    with pytest.raises(InvalidInput):
        keys.claim("acct-1", key, REQUEST)


def test_fingerprint_covers_method_path_query_and_body() -> None:
    base = fingerprint("POST", "/v1/a", [("x", "1")], "00")
    assert (
        len(
            {
                base,
                fingerprint("GET", "/v1/a", [("x", "1")], "00"),
                fingerprint("POST", "/v1/b", [("x", "1")], "00"),
                fingerprint("POST", "/v1/a", [("x", "2")], "00"),
                fingerprint("POST", "/v1/a", [("x", "1")], "01"),
            }
        )
        == 5
    )
