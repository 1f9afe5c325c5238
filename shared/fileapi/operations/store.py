"""Uploads and operations in the metering table (one item each, removed by TTL after `expires_at`).

    UPLOAD#<id> / UPLOAD          the upload's owner, S3 key, name, type, sizes, times
    OPERATION#<id> / OPERATION    the operation's owner, route, options, inputs, state, result, charge

DynamoDB deletes an expired item within days, not at once: every read treats an item past its
`expires_at` as gone. Writes of state are conditional on the state they move from (named conditions,
combined), so a repeated or late write changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from fileapi.metering.dynamo.table import CONDITION_FAILED, ConditionFailed, DynamoTable, int_attr, key_of, n, s, str_attr
from fileapi.operations.records import Charge, Operation, ResultFile, Status, Upload

UPLOAD_SK = "UPLOAD"
OPERATION_SK = "OPERATION"
IS_NEW = "attribute_not_exists(pk)"
IS_RUNNING = "#status = :running"


class FileStore:
    """Uploads and operations over one table.

    :param clock: the current time in epoch seconds (injected in tests).
    """

    def __init__(self, table: DynamoTable, *, clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.clock = clock

    # uploads

    def put_upload(self, upload: Upload) -> None:
        """Store a new upload."""
        item = {
            **key_of(f"UPLOAD#{upload.id}", UPLOAD_SK),
            "account_id": s(upload.account_id),
            "s3_key": s(upload.key),
            "filename": s(upload.filename),
            "content_type": s(upload.content_type),
            "declared_size": n(upload.declared_size),
            "max_bytes": n(upload.max_bytes),
            "created_at": n(upload.created_at),
            "expires_at": n(upload.expires_at),
        }
        self._put_new(item)

    def get_upload(self, upload_id: str) -> Upload | None:
        """The upload, or None when there is none or it expired."""
        item = self.table.get(f"UPLOAD#{upload_id}", UPLOAD_SK)
        if item is None or self._expired(item):
            return None
        return Upload(
            id=upload_id,
            account_id=_str(item, "account_id"),
            key=_str(item, "s3_key"),
            filename=_str(item, "filename"),
            content_type=_str(item, "content_type"),
            declared_size=_int(item, "declared_size"),
            max_bytes=_int(item, "max_bytes"),
            created_at=_int(item, "created_at"),
            expires_at=_int(item, "expires_at"),
        )

    def delete_upload(self, upload_id: str) -> None:
        """Forget the upload (its object is deleted by the caller)."""
        self._delete(f"UPLOAD#{upload_id}", UPLOAD_SK)

    # operations

    def put_operation(self, operation: Operation) -> None:
        """Store a new operation."""
        self._put_new({**key_of(f"OPERATION#{operation.id}", OPERATION_SK), **_operation_attributes(operation)})

    def get_operation(self, operation_id: str) -> Operation | None:
        """The operation, or None when there is none or it expired."""
        item = self.table.get(f"OPERATION#{operation_id}", OPERATION_SK)
        if item is None or self._expired(item):
            return None
        return _operation_from_item(operation_id, item)

    def succeed(
        self, operation_id: str, results: tuple[ResultFile, ...], details: dict[str, object]
    ) -> Operation | None:
        """Move a running operation to succeeded with its result; None when it is no longer running."""
        return self._end(
            operation_id,
            "SET #status = :to, results = :results, details = :details, updated_at = :now",
            {
                ":to": s(Status.SUCCEEDED.value),
                ":results": s(json.dumps([[r.name, r.content_type, r.size, r.sha256] for r in results])),
                ":details": s(json.dumps(details)),
            },
        )

    def fail(self, operation_id: str, *, code: str, message: str, status: Status = Status.FAILED) -> Operation | None:
        """Move a running operation to failed (or cancelled), its refund due; None when it is no longer running."""
        return self._end(
            operation_id,
            "SET #status = :to, error_code = :code, error_message = :message, refund_due = :yes, updated_at = :now",
            {":to": s(status.value), ":code": s(code), ":message": s(message), ":yes": {"BOOL": True}},
        )

    def mark_refunded(self, operation_id: str) -> None:
        """Record that the operation's unit was given back."""
        self.table.call(
            lambda: self.table.client.update_item(
                TableName=self.table.table_name,
                Key=key_of(f"OPERATION#{operation_id}", OPERATION_SK),
                UpdateExpression="SET refunded = :yes",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":yes": {"BOOL": True}},
            ),
            idempotent=True,
        )

    def delete_operation(self, operation_id: str) -> None:
        """Forget the operation (its files are deleted by the caller)."""
        self._delete(f"OPERATION#{operation_id}", OPERATION_SK)

    # helpers

    def _put_new(self, item: dict[str, Any]) -> None:
        """Put an item whose key is new (a random id): a failed condition can only be this put's own earlier
        attempt, applied before its reply was lost, so it is success."""
        try:
            self.table.call(
                lambda: self.table.client.put_item(
                    TableName=self.table.table_name, Item=item, ConditionExpression=IS_NEW
                ),
                idempotent=True,
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != CONDITION_FAILED:
                raise

    def _end(self, operation_id: str, update: str, values: dict[str, Any]) -> Operation | None:
        try:
            item = self.table.conditional_update(
                key_of(f"OPERATION#{operation_id}", OPERATION_SK),
                idempotent=True,  # repeatable: a second application finds the operation ended
                UpdateExpression=update,
                ConditionExpression=f"attribute_exists(pk) AND {IS_RUNNING}",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={**values, ":running": s(Status.RUNNING.value), ":now": n(int(self.clock()))},
            )
        except ConditionFailed:
            return None
        return _operation_from_item(operation_id, item)

    def _delete(self, pk: str, sk: str) -> None:
        self.table.call(
            lambda: self.table.client.delete_item(TableName=self.table.table_name, Key=key_of(pk, sk)),
            idempotent=True,
        )

    def _expired(self, item: dict[str, Any]) -> bool:
        return _int(item, "expires_at") <= self.clock()


def _operation_attributes(operation: Operation) -> dict[str, Any]:
    charge = operation.charge
    return {
        "account_id": s(operation.account_id),
        "route": s(operation.route),
        "options": s(json.dumps(operation.options)),
        "inputs": s(json.dumps(list(operation.inputs))),
        "status": s(operation.status.value),
        "created_at": n(operation.created_at),
        "updated_at": n(operation.updated_at),
        "expires_at": n(operation.expires_at),
        "charge": s(json.dumps([charge.account_id, charge.period, charge.request_id, charge.shard, charge.counted])),
        "refund_due": {"BOOL": operation.refund_due},
        "refunded": {"BOOL": operation.refunded},
    }


def _operation_from_item(operation_id: str, item: dict[str, Any]) -> Operation:
    account_id, period, request_id, shard, counted = json.loads(_str(item, "charge"))
    results = tuple(ResultFile(*entry) for entry in json.loads(str_attr(item, "results", "[]") or "[]"))
    return Operation(
        id=operation_id,
        account_id=_str(item, "account_id"),
        route=_str(item, "route"),
        options=json.loads(_str(item, "options")),
        inputs=tuple(json.loads(_str(item, "inputs"))),
        status=Status(_str(item, "status")),
        created_at=_int(item, "created_at"),
        updated_at=_int(item, "updated_at"),
        expires_at=_int(item, "expires_at"),
        charge=Charge(account_id, period, request_id, int(shard), bool(counted)),
        results=results,
        details=json.loads(str_attr(item, "details", "{}") or "{}"),
        error_code=str_attr(item, "error_code"),
        error_message=str_attr(item, "error_message"),
        refund_due=bool(item.get("refund_due", {}).get("BOOL", False)),
        refunded=bool(item.get("refunded", {}).get("BOOL", False)),
    )


def _str(item: dict[str, Any], name: str) -> str:
    return str_attr(item, name, "") or ""


def _int(item: dict[str, Any], name: str) -> int:
    return int_attr(item, name, 0) or 0
