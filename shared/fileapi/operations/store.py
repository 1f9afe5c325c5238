"""Uploads and operations in the metering table (one item each, removed by TTL after `expires_at`).

    UPLOAD#<id> / UPLOAD          the upload's owner, S3 key, name, type, sizes, times
    OPERATION#<id> / OPERATION    the operation's owner, request, state, result, charge, refund_due
    OPERATION#ACCOUNT#<account> / RUNNING   the account's running operations (a string set of ids)

DynamoDB deletes an expired item within days, not at once: every read treats an item past its
`expires_at` as gone. Writes of state are conditional on the state they move from (named conditions,
combined), so a repeated or late write changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from fileapi.models.files import OperationStatus
from fileapi.operations.records import Charge, Operation, Request, ResultFile, Upload
from fileapi.storage.table import (
    ConditionFailed,
    DynamoTable,
    int_attr,
    key_of,
    n,
    s,
    str_attr,
)

UPLOAD_SK = "UPLOAD"
RUNNING_SK = "RUNNING"
HAS_PLACE = "size(#ids) < :most"
# The running set's item lives a day past its last claim (an id left by a process that died is cleared by the
# next claim that finds the account full: OperationService.claim_run).
RUNNING_ITEM_SECONDS = 86_400
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
        self, operation_id: str, results: tuple[ResultFile, ...], details: dict[str, object], *, ran_ms: int
    ) -> Operation | None:
        """Move a running operation to succeeded with its result and how long it ran; None when it is no longer
        running."""
        return self._end(
            operation_id,
            "SET #status = :to, results = :results, details = :details, ran_ms = :ran, updated_at = :now",
            {
                ":to": s(OperationStatus.SUCCEEDED.value),
                ":results": s(json.dumps([[r.name, r.content_type, r.size, r.sha256, r.field] for r in results])),
                ":details": s(json.dumps(details)),
                ":ran": n(ran_ms),
            },
        )

    def fail(
        self,
        operation_id: str,
        *,
        code: str,
        message: str,
        status: OperationStatus = OperationStatus.FAILED,
        refund: bool = True,
        details: dict[str, object] | None = None,
        ran_ms: int | None = None,
    ) -> Operation | None:
        """Move a running operation to failed (or cancelled), with its refund due unless `refund` is False (its
        unit is settled elsewhere), `details` when given (a pipeline's stages) and how long it ran when it did;
        None when it is no longer running."""
        update = "SET #status = :to, error_code = :code, error_message = :message, refund_due = :due, updated_at = :now"
        values = {":to": s(status.value), ":code": s(code), ":message": s(message), ":due": {"BOOL": refund}}
        if details is not None:
            update += ", details = :details"
            values[":details"] = s(json.dumps(details))
        if ran_ms is not None:
            update += ", ran_ms = :ran"
            values[":ran"] = n(ran_ms)
        return self._end(operation_id, update, values)

    def note_ran(self, operation_id: str, ran_ms: int) -> None:
        """Record how long an operation's work ran (a cancelled one, once its work has stopped)."""
        try:
            self.table.conditional_update(
                key_of(f"OPERATION#{operation_id}", OPERATION_SK),
                idempotent=True,
                UpdateExpression="SET ran_ms = :ran",
                ConditionExpression="attribute_exists(pk)",  # deleted meanwhile: nothing to note
                ExpressionAttributeValues={":ran": n(ran_ms)},
            )
        except ConditionFailed:
            return

    # an account's running operations

    def claim_run(self, account_id: str, operation_id: str, *, most: int) -> tuple[str, ...]:
        """Count `operation_id` among the account's running operations if fewer than `most` run (or it is counted
        already: a repeated message); returns () when it is counted, else the ids that fill the account's places
        (nothing changed).
        """
        try:
            self.table.conditional_update(
                running_key(account_id),
                idempotent=True,  # adding an id to a set twice is adding it once
                UpdateExpression="ADD #ids :id SET expires_at = :expires",
                ConditionExpression=f"attribute_not_exists(#ids) OR {HAS_PLACE} OR contains(#ids, :one)",
                ExpressionAttributeNames={"#ids": "operation_ids"},
                ExpressionAttributeValues={
                    ":id": {"SS": [operation_id]},
                    ":one": s(operation_id),
                    ":most": n(most),
                    ":expires": n(int(self.clock()) + RUNNING_ITEM_SECONDS),
                },
            )
        except ConditionFailed as refused:
            return tuple((refused.item or {}).get("operation_ids", {}).get("SS", ()))
        return ()

    def release_run(self, account_id: str, operation_id: str) -> None:
        """No longer count `operation_id` among the account's running operations (repeatable)."""
        self.table.call(
            lambda: self.table.client.update_item(
                TableName=self.table.table_name,
                Key=running_key(account_id),
                UpdateExpression="DELETE #ids :id",
                ExpressionAttributeNames={"#ids": "operation_ids"},
                ExpressionAttributeValues={":id": {"SS": [operation_id]}},
            ),
            idempotent=True,
        )

    def take_refund(self, operation_id: str) -> bool:
        """Remove the operation's `refund_due` mark; True for the one caller that removed it (who then gives the
        unit back), False for every other (it was given back, or is being given back, already)."""
        try:
            self.table.conditional_update(
                key_of(f"OPERATION#{operation_id}", OPERATION_SK),
                UpdateExpression="REMOVE refund_due",
                ConditionExpression="refund_due = :yes",  # a conditional write decides who settles: exactly once
                ExpressionAttributeValues={":yes": {"BOOL": True}},
            )
        except ConditionFailed:
            return False
        return True

    def delete_operation(self, operation_id: str) -> None:
        """Forget the operation (its files are deleted by the caller)."""
        self._delete(f"OPERATION#{operation_id}", OPERATION_SK)

    # helpers

    def _put_new(self, item: dict[str, Any]) -> None:
        create_item(
            self.table, {"pk": item["pk"], "sk": item["sk"]}, {k: v for k, v in item.items() if k not in ("pk", "sk")}
        )

    def _end(self, operation_id: str, update: str, values: dict[str, Any]) -> Operation | None:
        try:
            item = self.table.conditional_update(
                key_of(f"OPERATION#{operation_id}", OPERATION_SK),
                idempotent=True,  # repeatable: a second application finds the operation ended
                UpdateExpression=update,
                ConditionExpression=f"attribute_exists(pk) AND {IS_RUNNING}",
                ExpressionAttributeNames={"#status": "status"},
                ExpressionAttributeValues={
                    **values,
                    ":running": s(OperationStatus.RUNNING.value),
                    ":now": n(int(self.clock())),
                },
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


def running_key(account_id: str) -> dict[str, Any]:
    """The key of the account's running-operations item."""
    return key_of(f"OPERATION#ACCOUNT#{account_id}", RUNNING_SK)


def create_item(table: DynamoTable, key: dict[str, Any], attributes: dict[str, Any]) -> None:
    """Write a new item of `key` with `attributes`, as an UpdateItem (the functions that make uploads, operations
    and webhooks may update items under their prefixes, and put none whole). The key is new (a random id): a
    failed condition can only be this write's own earlier attempt, applied before its reply was lost, so it is
    success."""
    names = {f"#a{index}": name for index, name in enumerate(attributes)}
    values = {f":v{index}": value for index, value in enumerate(attributes.values())}
    try:
        table.conditional_update(
            key,
            idempotent=True,
            UpdateExpression="SET " + ", ".join(f"#a{index} = :v{index}" for index in range(len(attributes))),
            ConditionExpression=IS_NEW,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
    except ConditionFailed:
        return


def _operation_attributes(operation: Operation) -> dict[str, Any]:
    charge, request = operation.charge, operation.request
    return {
        "account_id": s(operation.account_id),
        "request": s(
            json.dumps(
                [
                    request.route,
                    request.query,
                    request.content_type,
                    list(request.inputs),
                    request.inline,
                    request.options,
                ]
            )
        ),
        "status": s(operation.status.value),
        "created_at": n(operation.created_at),
        "updated_at": n(operation.updated_at),
        "expires_at": n(operation.expires_at),
        "charge": s(json.dumps([charge.account_id, charge.period, charge.request_id, charge.shard, charge.day])),
        "max_running": n(operation.max_running),
    }


def _operation_from_item(operation_id: str, item: dict[str, Any]) -> Operation:
    account_id, period, request_id, shard, day = json.loads(_str(item, "charge"))
    route, query, content_type, inputs, inline, *rest = json.loads(_str(item, "request"))
    options = rest[0] if rest else None  # an earlier release's record holds no options
    results = tuple(ResultFile(*entry) for entry in json.loads(str_attr(item, "results", "[]") or "[]"))
    return Operation(
        id=operation_id,
        account_id=_str(item, "account_id"),
        request=Request(route, query, content_type, tuple(inputs), bool(inline), options),
        status=OperationStatus(_str(item, "status")),
        created_at=_int(item, "created_at"),
        updated_at=_int(item, "updated_at"),
        expires_at=_int(item, "expires_at"),
        charge=Charge(account_id, period, request_id, int(shard), int(day)),
        results=results,
        details=json.loads(str_attr(item, "details", "{}") or "{}"),
        error_code=str_attr(item, "error_code"),
        error_message=str_attr(item, "error_message"),
        refund_due=bool(item.get("refund_due", {}).get("BOOL", False)),
        max_running=int_attr(item, "max_running", 1) or 1,  # a record from before the cap: one at a time
        ran_ms=int_attr(item, "ran_ms"),
    )


def _str(item: dict[str, Any], name: str) -> str:
    return str_attr(item, name, "") or ""


def _int(item: dict[str, Any], name: str) -> int:
    return int_attr(item, name, 0) or 0
