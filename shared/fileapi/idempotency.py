"""Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): the same key and request give the same answer.

The request path claims a key before it admits the request, then completes the claim with the answer, or
releases it when the request failed (an error is not kept: the client may retry with the same key). Keys
belong to the API key that sent them (its hash scopes them, so no read is needed to find the account). A
claim is one conditional write of this item, kept RETENTION_SECONDS (the table's TTL):

    IDEMPOTENCY#<hash of the API key>#<sha256 of the Idempotency-Key> / IDEMPOTENCY
        fingerprint, state (in_flight | done), claimed_at, expires_at, and once done the answer:
        answer_status, answer_headers, and answer_body or answer_object (a body in S3)

A second request with the key finds the item: a different fingerprint is 422 idempotency_key_reused; the
same one still in flight is 409 idempotency_in_flight with Retry-After, unless the claim is older than
LEASE_SECONDS (the first request died: the new one takes the claim over); the same one done gets the stored
answer. A body of at most MAX_ITEM_BODY_BYTES is kept in the item (DynamoDB items hold 400 KB); a larger
one (a synchronous answer holds up to 6 MB) in the files bucket under idempotency/, which expires it in a
day as the item's TTL does. An answer marked `Cache-Control: no-store` (one carrying a new API key) keeps
its status and headers only.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fileapi.errors import IdempotencyInFlight, IdempotencyKeyReused, InvalidInput
from fileapi.storage.table import (
    ConditionFailed,
    DynamoTable,
    int_attr,
    key_of,
    n,
    s,
    str_attr,
)

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

RETENTION_SECONDS = 86_400
# A claim not completed within this many seconds belongs to a request that died: a synchronous request is
# answered within its 20 s deadline, an operation is accepted within seconds, and the answer is stored at once.
LEASE_SECONDS = 60
MAX_KEY_LENGTH = 255
MAX_ITEM_BODY_BYTES = 256 * 1024
# The answer's headers that are kept and replayed (the metering headers are the replay's own).
STORED_HEADERS = frozenset(
    {
        "cache-control",
        "content-type",
        "location",
        "preference-applied",
        "retry-after",
        "x-animation",
        "x-animation-frames",
    }
)
OBJECT_PREFIX = "idempotency/"
SK = "IDEMPOTENCY"
IN_FLIGHT = "in_flight"
DONE = "done"


def check_key(key: str) -> str:
    """The Idempotency-Key header's value, checked: 1-255 printable ASCII characters (the quotes of the draft's
    structured-field string form removed).

    :raises InvalidInput: empty, too long, or other characters.
    """
    value = key.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if not 1 <= len(value) <= MAX_KEY_LENGTH or not all(" " <= char <= "~" for char in value):
        raise InvalidInput(f"Idempotency-Key must be 1-{MAX_KEY_LENGTH} printable ASCII characters (a UUID is usual)")
    return value


def fingerprint(method: str, path: str, query: Iterable[tuple[str, str]], body_sha256: str) -> str:
    """The request's fingerprint: method, path, query parameters (in order, as given) and the body's SHA-256."""
    digest = hashlib.sha256()
    for part in (method.upper(), path, *(f"{name}={value}" for name, value in query), body_sha256):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Stored:
    """A completed request's answer: its status, the headers of STORED_HEADERS and its body."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    @property
    def kept_body(self) -> bool:
        """Whether the body is kept (an answer marked `Cache-Control: no-store` keeps none)."""
        return not any(name.lower() == "cache-control" and "no-store" in value for name, value in self.headers)


@dataclass(frozen=True)
class Claim:
    """A key claimed for one request: what completing or releasing it needs."""

    scope: str
    key_hash: str
    fingerprint: str
    claimed_at: int


class IdempotencyStore:
    """Idempotency keys over one table, their large answers in one bucket.

    :param clock: the current time in epoch seconds.
    """

    def __init__(
        self, table: DynamoTable, s3: S3Client, *, bucket: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.table = table
        self.s3 = s3
        self.bucket = bucket
        self.clock = clock

    def claim(self, scope: str, key: str, request_fingerprint: str) -> Claim | Stored:
        """Claim `key` of `scope` (the hash of the API key that sent it) for a request of `request_fingerprint`;
        or the stored answer of the same request.

        :raises InvalidInput: a malformed key.
        :raises IdempotencyKeyReused: the key was used for a different request in the last 24 hours.
        :raises IdempotencyInFlight: the same request is still being answered.
        """
        key_hash = hashlib.sha256(check_key(key).encode()).hexdigest()
        now = int(self.clock())
        try:
            self.table.conditional_update(
                self._key(scope, key_hash),
                idempotent=False,
                UpdateExpression="SET fingerprint = :fp, #state = :in_flight, claimed_at = :now, expires_at = :expires"
                " REMOVE answer_status, answer_headers, answer_body, answer_object",
                ConditionExpression="attribute_not_exists(pk) OR expires_at <= :now OR "
                "(fingerprint = :fp AND #state = :in_flight AND claimed_at <= :stale)",
                ExpressionAttributeNames={"#state": "state"},
                ExpressionAttributeValues={
                    ":fp": s(request_fingerprint),
                    ":in_flight": s(IN_FLIGHT),
                    ":now": n(now),
                    ":stale": n(now - LEASE_SECONDS),
                    ":expires": n(now + RETENTION_SECONDS),
                },
            )
        except ConditionFailed as failed:
            return self._existing(failed.item or {}, request_fingerprint, now)
        return Claim(scope, key_hash, request_fingerprint, now)

    def complete(self, claim: Claim, answer: Stored) -> None:
        """Store the answer of the claimed request (its body in the bucket when over MAX_ITEM_BODY_BYTES)."""
        kept = [[name, value] for name, value in answer.headers if name.lower() in STORED_HEADERS]
        values: dict[str, Any] = {
            ":done": s(DONE),
            ":claimed": n(claim.claimed_at),
            ":status": n(answer.status),
            ":headers": {"L": [{"L": [s(name), s(value)]} for name, value in kept]},
        }
        update = "SET #state = :done, answer_status = :status, answer_headers = :headers"
        if answer.kept_body and len(answer.body) > MAX_ITEM_BODY_BYTES:
            name = f"{OBJECT_PREFIX}{claim.scope}/{claim.key_hash}"
            self.s3.put_object(Bucket=self.bucket, Key=name, Body=answer.body)
            update += ", answer_object = :object"
            values[":object"] = s(name)
        elif answer.kept_body:
            update += ", answer_body = :body"
            values[":body"] = {"B": answer.body}
        self.table.conditional_update(
            self._key(claim.scope, claim.key_hash),
            idempotent=True,
            UpdateExpression=update,
            ConditionExpression="claimed_at = :claimed",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues=values,
        )

    def release(self, claim: Claim) -> None:
        """Forget the claim of a request that failed (so that the same key may be sent again): the item expires
        now, which every claim takes as no item (an UpdateItem: the request path deletes nothing)."""
        try:
            self.table.conditional_update(
                self._key(claim.scope, claim.key_hash),
                idempotent=True,
                UpdateExpression="SET expires_at = :claimed",
                ConditionExpression="claimed_at = :claimed",
                ExpressionAttributeValues={":claimed": n(claim.claimed_at)},
            )
        except ConditionFailed:
            return  # taken over by a later request after the lease: that claim is not this one's to release

    def _existing(self, item: Mapping[str, Any], request_fingerprint: str, now: int) -> Stored:
        found = dict(item)
        if str_attr(found, "fingerprint") != request_fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was used for a different request in the last 24 hours: make a new key for "
                "each new request, and reuse one only to retry the very same request"
            )
        if str_attr(found, "state") == IN_FLIGHT:
            claimed = int_attr(found, "claimed_at", now) or now
            wait = max(1, min(LEASE_SECONDS, claimed + LEASE_SECONDS - now))
            raise IdempotencyInFlight(
                "a request with this Idempotency-Key is still being answered: send it again after Retry-After",
                retry_after_seconds=wait,
            )
        kept = found.get("answer_headers", {}).get("L", [])
        headers = tuple((entry["L"][0]["S"], entry["L"][1]["S"]) for entry in kept)
        body = found["answer_body"]["B"] if "answer_body" in found else b""
        if "answer_object" in found:
            body = self.s3.get_object(Bucket=self.bucket, Key=found["answer_object"]["S"])["Body"].read()
        return Stored(status=int_attr(found, "answer_status", 200) or 200, headers=headers, body=body)

    @staticmethod
    def _key(scope: str, key_hash: str) -> dict[str, Any]:
        return key_of(f"IDEMPOTENCY#{scope}#{key_hash}", SK)
