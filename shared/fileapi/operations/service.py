"""Operations: submitted from a request that names uploads, read, cancelled and deleted by their account.

`submit` is what the request path calls once it has admitted a request (one unit of the quota reserved):
it checks the uploads, records the operation with what its refund needs, queues it and returns the record
for the 202 answer. From then on the unit is settled here and in the executor: kept on success, given
back on failure or cancellation, once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from fileapi.errors import NotFound, ServiceUnavailable
from fileapi.metering.meter import Admission, Meter
from fileapi.models.files import iso_seconds
from fileapi.operations.records import (
    OPERATION_PREFIX,
    Charge,
    Operation,
    Status,
    is_id,
    new_id,
    result_key,
    result_prefix,
)
from fileapi.operations.store import FileStore
from fileapi.operations.transfer import delete_prefix
from fileapi.operations.uploads import DAY_SECONDS, UploadService
from fileapi.operations.work import work_for

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

    from fileapi.models.files import OperationResult

# A client polling an operation is told to come back after this many seconds.
RETRY_AFTER_SECONDS = 2
CANCELLED = "cancelled"


class OperationService:
    """Operations of one bucket, queue and table.

    :param queue_url: the operations queue (None: operations are off, and submitting one is 503).
    :param link_seconds: how long a result's presigned GET is valid (at most until the result expires).
    """

    def __init__(
        self,
        uploads: UploadService,
        sqs: SQSClient,
        *,
        queue_url: str | None,
        link_seconds: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.uploads = uploads
        self.store: FileStore = uploads.store
        self.sqs = sqs
        self.queue_url = queue_url
        self.link_seconds = link_seconds
        self.clock = clock

    def submit(
        self, admission: Admission, *, route: str, options: Mapping[str, str], upload_ids: Sequence[str]
    ) -> Operation:
        """Record and queue the operation of an admitted request whose inputs are uploads.

        The caller settles the admission when this raises (nothing was queued); once it returns, the
        operation owns the unit.

        :param route: the route whose work it runs, e.g. /v1/pdf/split.
        :param options: the request's query options (text), validated here as the route validates them.
        :param upload_ids: the `?upload=` ids, in order.
        :raises InvalidInput: a route that does not take uploads, bad options, a wrong number of uploads, or an
            upload with no file yet.
        :raises NotFound: an upload that is not the account's (or expired).
        :raises TooLarge: an upload's file over its bound.
        :raises ServiceUnavailable: operations are off here, or the queue did not take it.
        """
        work = work_for(route)
        work.check_inputs(len(upload_ids))
        work.validated(options)
        for upload_id in upload_ids:
            self.uploads.stored_size(self.uploads.owned(upload_id, admission.account_id))
        if self.queue_url is None:
            raise ServiceUnavailable("operations are not configured on this server (no operations queue)")
        now = int(self.clock())
        operation = Operation(
            id=new_id(OPERATION_PREFIX),
            account_id=admission.account_id,
            route=route,
            options=dict(options),
            inputs=tuple(upload_ids),
            status=Status.RUNNING,
            created_at=now,
            updated_at=now,
            expires_at=now + self.uploads.retention_days * DAY_SECONDS,
            charge=Charge.of(admission),
        )
        self.store.put_operation(operation)
        try:
            self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=json.dumps({"operation": operation.id}))
        except Exception:
            # Not queued: the caller gives the unit back, so the record must not be refunded again.
            self.store.fail(operation.id, code="service_unavailable", message="the operation could not be queued")
            self.store.mark_refunded(operation.id)
            raise ServiceUnavailable("the operation could not be queued; nothing was charged: retry") from None
        return operation

    def owned(self, operation_id: str, account_id: str) -> Operation:
        """The account's operation.

        :raises NotFound: no such operation for this account (never made, expired, deleted, or another's).
        """
        operation = self.store.get_operation(operation_id) if is_id(operation_id, OPERATION_PREFIX) else None
        if operation is None or operation.account_id != account_id:
            raise NotFound(
                f"no operation {operation_id[:40]!r} for this key's account (operations and their files are "
                f"kept {self.uploads.retention_days * 24} hours)"
            )
        return operation

    def view(self, operation: Operation) -> OperationResult:
        """The operation as the API shows it, with fresh presigned GET links to its files."""
        from fileapi.models.files import OperationError, OperationFile, OperationResult

        files: list[OperationFile] = []
        if operation.status is Status.SUCCEEDED:
            now = int(self.clock())
            until = min(now + self.link_seconds, operation.expires_at)
            for index, result in enumerate(operation.results):
                url = self.uploads.s3.generate_presigned_url(
                    "get_object",
                    Params={
                        "Bucket": self.uploads.bucket,
                        "Key": result_key(operation.account_id, operation.id, index),
                        "ResponseContentType": result.content_type,
                        "ResponseContentDisposition": f'attachment; filename="{result.name}"',
                    },
                    ExpiresIn=max(1, until - now),
                )
                files.append(
                    OperationFile(
                        name=result.name,
                        url=url,
                        content_type=result.content_type,
                        size=result.size,
                        sha256=result.sha256,
                        expires_at=iso_seconds(until),
                    )
                )
        shown = OperationResult(
            id=operation.id,
            status=operation.status.value,
            route=operation.route,
            created_at=iso_seconds(operation.created_at),
            updated_at=iso_seconds(operation.updated_at),
        )
        if len(files) == 1:
            shown.result = files[0]
        elif files:
            shown.results = files
        if operation.details:
            shown.details = operation.details
        if operation.error_code is not None:
            shown.error = OperationError(code=operation.error_code, message=operation.error_message or "")
        return shown

    def cancel_or_delete(self, operation: Operation, meter: Meter) -> None:
        """Cancel a running operation (its unit given back; the record kept, as cancelled, until it
        expires), or delete an ended one with its result files and its input uploads."""
        if not operation.ended:
            cancelled = self.store.fail(
                operation.id, code=CANCELLED, message="cancelled by DELETE", status=Status.CANCELLED
            )
            if cancelled is not None:
                settle_refund(self.store, meter, cancelled)
                return
            operation = self.store.get_operation(operation.id) or operation  # it ended meanwhile
        delete_prefix(self.uploads.s3, self.uploads.bucket, result_prefix(operation.account_id, operation.id))
        for upload_id in operation.inputs:
            upload = self.store.get_upload(upload_id)
            if upload is not None and upload.account_id == operation.account_id:
                self.uploads.delete(upload)
        self.store.delete_operation(operation.id)


def settle_refund(store: FileStore, meter: Meter, operation: Operation) -> None:
    """Give back the unit of an operation that ended without success, once: the record says when it was."""
    if not operation.refund_due or operation.refunded:
        return
    charge = operation.charge
    if charge.counted:
        meter.refund_charge(charge.account_id, charge.period, charge.request_id, shard=charge.shard)
    store.mark_refunded(operation.id)
