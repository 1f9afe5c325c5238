"""Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): the same key and request give the same answer.

The request path claims a key before it admits the request, then completes the claim with the answer (or
the operation it started), or releases it when the request failed (an error is not kept: the client may
retry with the same key). A claim is one conditional write of this item, kept 24 hours:

    IDEMPOTENCY#<account id>#<sha256 of the key> / IDEMPOTENCY
        fingerprint, state (in_flight | done), claimed_at, answer (status, headers, body) or operation id

A second request with the key finds the item: a different fingerprint is 422 idempotency_key_reused; the
same one still in flight is 409 idempotency_in_flight with Retry-After (the draft's suggestion), unless the
claim is older than the lease (the first request died: the new one takes the claim over); the same one done
gets the stored answer. Stored: the status, the headers in STORED_HEADERS and a body of at most
MAX_STORED_BODY_BYTES (DynamoDB items hold 400 KB). A larger synchronous answer is stored without its body
(`Stored.body is None`): its repeat may run the conversion again, uncharged.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fileapi.errors import IdempotencyInFlight, IdempotencyKeyReused, InvalidInput
from fileapi.metering.dynamo.table import ConditionFailed, DynamoTable, int_attr, key_of, n, s, str_attr

RETENTION_SECONDS = 86_400
# A claim not completed within this many seconds belongs to a request that died (the synchronous deadline
# is 20 s and the answer is stored right after it).
LEASE_SECONDS = 60
MAX_KEY_LENGTH = 255
MAX_STORED_BODY_BYTES = 256 * 1024
STORED_HEADERS = frozenset({"content-type", "location", "retry-after", "x-animation", "x-animation-frames"})
SK = "IDEMPOTENCY"
IN_FLIGHT = "in_flight"
DONE = "done"


def check_key(key: str) -> str:
    """The Idempotency-Key header's value, checked: 1-255 printable ASCII characters (quotes of the
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
    """A completed request's answer: an operation id, or a status, headers and a body (None when larger than
    MAX_STORED_BODY_BYTES)."""

    operation_id: str | None = None
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = b""


@dataclass(frozen=True)
class Claim:
    """A key claimed for one request: what completing or releasing it needs."""

    account_id: str
    key_hash: str
    fingerprint: str
    claimed_at: int


class IdempotencyStore:
    """Idempotency keys over one table.

    :param clock: the current time in epoch seconds.
    """

    def __init__(self, table: DynamoTable, *, clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.clock = clock

    def claim(self, account_id: str, key: str, request_fingerprint: str) -> Claim | Stored:
        """Claim `key` for a request of `request_fingerprint`; or the stored answer of the same request.

        :raises InvalidInput: a malformed key.
        :raises IdempotencyKeyReused: the key was used for a different request in the last 24 hours.
        :raises IdempotencyInFlight: the same request is still being answered.
        """
        key_hash = hashlib.sha256(check_key(key).encode()).hexdigest()
        now = int(self.clock())
        try:
            self.table.conditional_update(
                self._key(account_id, key_hash),
                idempotent=False,
                UpdateExpression="SET fingerprint = :fp, #state = :in_flight, claimed_at = :now, expires_at = :expires"
                " REMOVE answer_status, answer_headers, answer_body, operation_id",
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
        return Claim(account_id, key_hash, request_fingerprint, now)

    def complete(self, claim: Claim, answer: Stored) -> None:
        """Store the answer of the claimed request (a body over MAX_STORED_BODY_BYTES is left out)."""
        values: dict[str, Any] = {":done": s(DONE), ":claimed": n(claim.claimed_at)}
        if answer.operation_id is not None:
            update = "SET #state = :done, operation_id = :operation"
            values[":operation"] = s(answer.operation_id)
        else:
            update = "SET #state = :done, answer_status = :status, answer_headers = :headers"
            values[":status"] = n(answer.status)
            kept = [[name, value] for name, value in answer.headers if name.lower() in STORED_HEADERS]
            values[":headers"] = {"L": [{"L": [s(name), s(value)]} for name, value in kept]}
            if answer.body is not None and len(answer.body) <= MAX_STORED_BODY_BYTES:
                update += ", answer_body = :body"
                values[":body"] = {"B": answer.body}
        self.table.conditional_update(
            self._key(claim.account_id, claim.key_hash),
            idempotent=True,
            UpdateExpression=update,
            ConditionExpression="claimed_at = :claimed",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues=values,
        )

    def release(self, claim: Claim) -> None:
        """Forget the claim of a request that failed (so that the same key may be sent again)."""
        self.table.call(
            lambda: self.table.client.delete_item(
                TableName=self.table.table_name,
                Key=self._key(claim.account_id, claim.key_hash),
                ConditionExpression="claimed_at = :claimed",
                ExpressionAttributeValues={":claimed": n(claim.claimed_at)},
            ),
            idempotent=True,
        )

    def _existing(self, item: Mapping[str, Any], request_fingerprint: str, now: int) -> Stored:
        if str_attr(dict(item), "fingerprint") != request_fingerprint:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was used for a different request in the last 24 hours: "
                "make a new key for each new request"
            )
        if str_attr(dict(item), "state") == IN_FLIGHT:
            claimed = int_attr(dict(item), "claimed_at", now) or now
            wait = max(1, min(LEASE_SECONDS, claimed + LEASE_SECONDS - now))
            raise IdempotencyInFlight(
                "a request with this Idempotency-Key is still being answered: send it again after Retry-After",
                retry_after_seconds=wait,
            )
        if "operation_id" in item:
            return Stored(operation_id=str_attr(dict(item), "operation_id"), status=202)
        headers = tuple(
            (entry["L"][0]["S"], entry["L"][1]["S"]) for entry in item.get("answer_headers", {}).get("L", [])
        )
        body = item["answer_body"]["B"] if "answer_body" in item else None
        return Stored(status=int_attr(dict(item), "answer_status", 200) or 200, headers=headers, body=body)

    @staticmethod
    def _key(account_id: str, key_hash: str) -> dict[str, Any]:
        return key_of(f"IDEMPOTENCY#{account_id}#{key_hash}", SK)
