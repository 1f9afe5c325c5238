"""Operations: accepted from a metered request, read, cancelled and deleted by their account, settled once.

`submit` is what the request path calls once it has admitted a request (one unit of the quota reserved): it
checks the uploads, records the operation with what its refund needs, queues it and returns the record for
the 202 answer. From then on the operation owns the unit: kept when it succeeds, given back when it fails or
is cancelled, by whoever removes the record's `refund_due` mark (one conditional write: exactly once, whatever
SQS redelivers).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fileapi.errors import NotFound, ServiceUnavailable
from fileapi.metering.plans import max_running_operations
from fileapi.models.files import OperationError, OperationFile, OperationResult, OperationStatus, iso_seconds
from fileapi.models.pipelines import OutputReport, StageReport
from fileapi.operations.records import (
    OPERATION_PREFIX,
    Charge,
    Operation,
    Request,
    is_id,
    new_id,
    result_key,
    result_prefix,
)
from fileapi.operations.store import FileStore
from fileapi.operations.transfer import delete_prefix
from fileapi.operations.uploads import DAY_SECONDS, UploadService

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

    from fileapi.metering.meter import Admission, Meter

log = logging.getLogger("fileapi.operations")
# A pipeline's details hold these (fileapi.operations.pipelines); the view shows them as fields of their own.
STAGES = "stages"
OUTPUTS = "outputs"
EACH = "each"  # a last stage run once per file: the details of each run, in order
# A pipeline's stored request holds the units of its stages after the first (the operation's own charge).
CHARGES = "charges"


def extra_charges(operation: Operation) -> list[tuple[str, str, int, int]]:
    """The units a pipeline reserved for its stages after the first: (period, request id, shard, day) each."""
    given = (operation.request.options or {}).get(CHARGES) or []
    return [(str(period), str(request_id), int(shard), int(day)) for period, request_id, shard, day in given]


def kept_stages(operation: Operation) -> int:
    """How many of an ended operation's units it keeps: a pipeline, its stages that succeeded; else none (it
    is settled only when it did not succeed)."""
    stages: list[dict[str, Any]] = _listed(operation.details, STAGES)
    return sum(1 for stage in stages if stage.get("status") == "succeeded")


def _listed(details: dict[str, object] | None, name: str) -> list[dict[str, Any]]:
    value = (details or {}).get(name)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


# A client polling an operation is told to come back after this many seconds.
RETRY_AFTER_SECONDS = 2
CANCELLED = "cancelled"


@dataclass(frozen=True)
class StartCheck:
    """What a route refuses from the first `size` bytes of an input, checked before an operation is accepted:
    `check` raises the ApiError the route itself would answer (fileapi.web.input_checks)."""

    size: int
    check: Callable[[bytes], object]


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
        self,
        admission: Admission,
        *,
        route: str,
        query: str,
        options: dict[str, Any] | None = None,
        uploads: Sequence[str] = (),
        bodies: Sequence[tuple[bytes, str]] = (),
        start_check: StartCheck | None = None,
    ) -> Operation:
        """Record and queue the operation of an admitted request to `route` with `query` (its query string
        without the uploads) and its validated `options` (wire names), over the account's `uploads`, or over
        `bodies` (the request's own files and their media types, each kept as an upload first), or over nothing
        (a conversion of options alone).

        Everything that can be refused without converting is refused first, with nothing stored or queued: a
        missing, foreign or expired upload, one with no file or over its bound, and, by `start_check`, an input
        whose first bytes the route would refuse (empty, another kind of file).

        The caller gives the admission's unit back when this raises (nothing was queued); once it returns, the
        operation owns the unit.

        :raises InvalidInput: an upload with no file yet; `start_check`'s refusal.
        :raises UnsupportedFormat: `start_check`'s refusal.
        :raises NotFound: an upload that is not the account's (or expired).
        :raises TooLarge: an upload's file over its bound.
        :raises ServiceUnavailable: operations are off here, or the queue did not take it.
        """
        if self.queue_url is None:
            raise ServiceUnavailable("operations are not configured on this server (no operations queue)")
        if bodies:
            if start_check is not None:
                for data, _ in bodies:
                    start_check.check(data[: start_check.size])
            kept = [self.uploads.keep_body(admission.account_id, data, content_type=kind) for data, kind in bodies]
            ids = tuple(upload.id for upload in kept)
            request = Request(route, query, kept[0].content_type, ids, inline=True, options=options)
        else:
            owned = [self.uploads.owned(upload_id, admission.account_id) for upload_id in uploads]
            for upload in owned:
                self.uploads.stored_size(upload)
                if start_check is not None:
                    start_check.check(self.uploads.first_bytes(upload, start_check.size))
            content_type = owned[0].content_type if owned else ""
            request = Request(route, query, content_type, tuple(uploads), options=options)
        now = int(self.clock())
        operation = Operation(
            id=new_id(OPERATION_PREFIX),
            account_id=admission.account_id,
            request=request,
            status=OperationStatus.RUNNING,
            created_at=now,
            updated_at=now,
            expires_at=now + self.uploads.retention_days * DAY_SECONDS,
            charge=Charge.of(admission),
            max_running=max_running_operations(admission.state.plan),
        )
        self.store.put_operation(operation)
        try:
            self.queue(operation)
        except Exception:
            log.exception("operations: %s could not be queued", operation.id)
            # Not queued: the caller gives the unit back, so the record holds no refund of its own.
            self.store.fail(operation.id, code="service_unavailable", message="it could not be queued", refund=False)
            raise ServiceUnavailable("the operation could not be queued; nothing was charged: retry") from None
        return operation

    def queue(self, operation: Operation, *, delay_seconds: int = 0) -> None:
        """Send the operation's message, in its account's message group: SQS fair queues keep one account's
        backlog from delaying the others' messages (a standard queue with MessageGroupId)."""
        assert self.queue_url is not None
        self.sqs.send_message(
            QueueUrl=self.queue_url,
            MessageBody=json.dumps({"operation": operation.id}),
            MessageGroupId=operation.account_id,
            DelaySeconds=delay_seconds,
        )

    def claim_run(self, operation: Operation) -> bool:
        """Count the operation among its account's running ones, if its account runs fewer than its
        `max_running`; False when the account's places are all taken (by operations still running: an id left
        by a run that died is cleared here, once its operation has ended or is gone)."""
        for _ in range(2):
            holders = self.store.claim_run(operation.account_id, operation.id, most=operation.max_running)
            if not holders:
                return True
            stale = [held for held in holders if not self._still_running(held)]
            if not stale:
                return False
            for held in stale:
                self.store.release_run(operation.account_id, held)
        return False

    def release_run(self, operation: Operation) -> None:
        """The operation no longer counts among its account's running ones."""
        self.store.release_run(operation.account_id, operation.id)

    def _still_running(self, operation_id: str) -> bool:
        held = self.store.get_operation(operation_id)
        return held is not None and not held.ended

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
        shown = OperationResult(
            id=operation.id,
            status=operation.status,
            route=operation.request.route,
            created_at=iso_seconds(operation.created_at),
            updated_at=iso_seconds(operation.updated_at),
        )
        details = {name: value for name, value in (operation.details or {}).items() if name not in (STAGES, OUTPUTS)}
        stages = _listed(operation.details, STAGES)
        if stages:
            shown.stages = [StageReport.model_validate(stage) for stage in stages]
        if OUTPUTS in (operation.details or {}):
            shown.outputs = [OutputReport.model_validate(output) for output in _listed(operation.details, OUTPUTS)]
        if operation.status is OperationStatus.SUCCEEDED:
            files = self._links(operation)
            shown.results = files
            if len(files) == 1:
                shown.result = files[0]
            if details:
                shown.details = details
        if operation.error_code is not None:
            failed = next((index for index, stage in enumerate(stages) if stage.get("status") == "failed"), None)
            at_stage = {"stage": failed} if failed is not None else {}  # a pipeline's stage that failed
            shown.error = OperationError(code=operation.error_code, message=operation.error_message or "", **at_stage)
        if operation.ran_ms is not None:
            shown.ran_seconds = operation.ran_ms / 1000
        return shown

    def _links(self, operation: Operation) -> list[OperationFile]:
        now = int(self.clock())
        until = min(now + self.link_seconds, operation.expires_at)
        files = []
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
            named = {"field": result.field} if result.field is not None else {}
            files.append(
                OperationFile(
                    **named,
                    name=result.name,
                    url=url,
                    content_type=result.content_type,
                    size=result.size,
                    sha256=result.sha256,
                    expires_at=iso_seconds(until),
                )
            )
        return files

    def cancel_or_delete(self, operation: Operation, meter: Meter) -> None:
        """Cancel a running operation (its unit given back; the record kept, as cancelled, until it expires),
        or delete an ended one with its result files and its input uploads."""
        if not operation.ended:
            cancelled = self.store.fail(
                operation.id, code=CANCELLED, message="cancelled by DELETE", status=OperationStatus.CANCELLED
            )
            if cancelled is not None:
                self.settle(cancelled, meter)
                return
            operation = self.store.get_operation(operation.id) or operation  # it ended meanwhile
        delete_prefix(self.uploads.s3, self.uploads.bucket, result_prefix(operation.account_id, operation.id))
        for upload_id in operation.request.inputs:
            upload = self.store.get_upload(upload_id)
            if upload is not None and upload.account_id == operation.account_id:
                self.uploads.delete(upload)
        self.store.delete_operation(operation.id)

    def settle(self, operation: Operation, meter: Meter) -> None:
        """Give back the unit of an operation that ended without success: once, by whoever takes the record's
        refund mark (a repeat, or a second process, finds it taken)."""
        if operation.refund_due and self.store.take_refund(operation.id):
            kept = kept_stages(operation)
            charge = operation.charge
            if kept == 0:
                meter.refund_admitted(
                    charge.account_id, charge.period, charge.request_id, shard=charge.shard, day=charge.day
                )
            for stage, (period, request_id, shard, day) in enumerate(extra_charges(operation), start=1):
                if stage >= kept:  # a pipeline's stage that did not succeed
                    meter.refund_admitted(charge.account_id, period, request_id, shard=shard, day=day)
