"""The Operations function's work: take an operation from the queue, run it over files, settle it.

For each SQS message (the event of an SQS-triggered Lambda, or the local consumer's copy of it): the
operation's inputs stream from S3 to a work folder (ephemeral storage), its work runs over the files, its
results stream back to S3 with their SHA-256, and the record moves running -> succeeded, or -> failed with
its unit given back. Every step is safe to repeat: SQS delivers at least once, and a message whose
operation has ended only finishes what the first run left undone (the refund, the webhook). A failure of
S3 or DynamoDB themselves leaves the message to be received again; on its last receive
(OPERATION_RECEIVES) the operation is failed instead of run, so a file that kills its worker (memory,
time) ends as failed and refunded, never as running forever.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from fileapi.errors import ApiError
from fileapi.metering.meter import Meter
from fileapi.metering.storage import StoreError
from fileapi.operations.aws import OPERATION_RECEIVES
from fileapi.operations.records import Operation, ResultFile, result_key, result_prefix
from fileapi.operations.service import settle_refund
from fileapi.operations.store import FileStore
from fileapi.operations.transfer import delete_prefix, download, upload
from fileapi.operations.uploads import UploadService
from fileapi.operations.work import run_work, work_for

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

log = logging.getLogger("fileapi.operations")
# Failures of the services themselves: the message is received again (the work is repeatable).
TRANSIENT = (BotoCoreError, ClientError, StoreError)


class Executor:
    """Runs queued operations.

    :param work_dir: where work folders are made (Lambda: /tmp, up to 10 GB of ephemeral storage).
    :param notify: called with each operation that ended (the webhook deliveries); None: no one is told.
    :param max_receives: on this receive of a message, its operation is failed instead of run again.
    """

    def __init__(
        self,
        uploads: UploadService,
        meter: Meter,
        *,
        work_dir: Path | None = None,
        notify: Callable[[Operation], None] | None = None,
        max_receives: int = OPERATION_RECEIVES,
    ) -> None:
        self.uploads = uploads
        self.store: FileStore = uploads.store
        self.s3: S3Client = uploads.s3
        self.bucket = uploads.bucket
        self.meter = meter
        self.work_dir = work_dir
        self.notify = notify
        self.max_receives = max_receives

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """Process an SQS batch event; answer the partial batch response (the messages to receive again)."""
        failures = []
        for record in event.get("Records", []):
            receives = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
            try:
                operation_id = str(json.loads(record["body"])["operation"])
            except (ValueError, KeyError, TypeError):
                log.error("operations: a message that names no operation was dropped")
                continue
            try:
                self.run(operation_id, receives=receives)
            except TRANSIENT as exc:
                log.warning("operations: %s will be received again (%s)", operation_id, type(exc).__name__)
                failures.append({"itemIdentifier": record["messageId"]})
        return {"batchItemFailures": failures}

    def run(self, operation_id: str, *, receives: int = 1) -> Operation | None:
        """Run the operation `operation_id` (its message's `receives`-th receive) to its end; the operation
        as it ended, or None when it is gone (deleted, expired).

        :raises BotoCoreError, ClientError, StoreError: S3, SQS or DynamoDB failed; run it again later.
        """
        operation = self.store.get_operation(operation_id)
        if operation is None:
            return None
        if operation.ended:
            return self._settled(operation)  # a repeated message: finish what the first run left undone
        if receives >= self.max_receives + 1:
            message = (
                f"the operation stopped before it ended {receives - 1} times (out of memory or time): "
                "send a smaller file, or split it first"
            )
            return self._failed(operation, "conversion_failed", message)
        try:
            results, details = self._work(operation)
        except ApiError as error:
            return self._failed(operation, error.code, error.message)
        except TRANSIENT:
            raise
        except Exception as exc:  # the work's own failure, not the input's: answered as the API answers it
            log.exception("operations: %s failed unexpectedly", operation.id)
            return self._failed(
                operation, "internal_error", f"the operation failed unexpectedly ({type(exc).__name__})"
            )
        ended = self.store.succeed(operation.id, results, details)
        if ended is None:  # cancelled while it ran: its files go with it
            delete_prefix(self.s3, self.bucket, result_prefix(operation.account_id, operation.id))
            return self.store.get_operation(operation.id)
        return self._settled(ended)

    def _work(self, operation: Operation) -> tuple[tuple[ResultFile, ...], dict[str, object]]:
        """Stream the inputs in, run the work, stream the results out (the folder is removed after)."""
        work = work_for(operation.route)
        options = work.validated(operation.options)
        with tempfile.TemporaryDirectory(prefix="op-", dir=self.work_dir) as folder_name:
            folder = Path(folder_name)
            inputs = []
            for position, upload_id in enumerate(operation.inputs, start=1):
                source = self.uploads.owned(upload_id, operation.account_id)
                self.uploads.stored_size(source)
                path = folder / f"input-{position}"
                download(self.s3, self.bucket, source.key, path)
                inputs.append(path)
            out = folder / "out"
            out.mkdir()
            outcome = run_work(work, inputs, options, out)
            results = []
            for index, produced in enumerate(outcome.files):
                key = result_key(operation.account_id, operation.id, index)
                stored = upload(self.s3, self.bucket, key, produced.path, content_type=produced.content_type)
                results.append(ResultFile(produced.name, produced.content_type, stored.size, stored.sha256))
        return tuple(results), outcome.details

    def _failed(self, operation: Operation, code: str, message: str) -> Operation | None:
        ended = self.store.fail(operation.id, code=code, message=message)
        return self._settled(ended) if ended is not None else self.store.get_operation(operation.id)

    def _settled(self, operation: Operation) -> Operation:
        settle_refund(self.store, self.meter, operation)
        if self.notify is not None:
            self.notify(operation)
        return operation
