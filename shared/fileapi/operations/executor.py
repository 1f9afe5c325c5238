"""The Operations function's work: take an operation from the queue, run it over files, settle it.

For each SQS message (the event of an SQS-triggered Lambda, or the local consumer's copy of it): the
operation's inputs stream from S3 to a work folder (ephemeral storage), its conversion runs over them as the
catalogue declares it (fileapi.operations.conversions: in conversion workers), its results stream back to S3
with their SHA-256, and
the record moves running -> succeeded, or -> failed with its unit given back. Every step is safe to repeat:
SQS delivers at least once, and a message whose operation has ended only finishes what the first run left
undone (the refund, the webhook). A failure of S3 or DynamoDB themselves leaves the message to be received
again; on a receive past `max_receives` the operation is failed instead of run, so a file that brings its
function down (memory, time) ends as failed and refunded, never as running forever.

Operations take turns by account: a run first claims one of its account's places (its plan's
`max_running_operations`), and a message whose account has none free goes back to the queue, delayed, in the
account's message group (fileapi.operations.service). While the work runs its record is read every
CANCEL_POLL_SECONDS, and a cancelled operation's work is stopped (its conversion's worker killed); the
milliseconds it ran are kept in the record.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from fileapi.catalogue.outcome import Outcome, OutFile, field_text
from fileapi.catalogue.registry import by_path
from fileapi.errors import ApiError
from fileapi.isolation.tenants import working_for
from fileapi.models.pipelines import PipelineRequest
from fileapi.net.addresses import DEPLOYED, EgressPolicy
from fileapi.net.connection import Deadline
from fileapi.net.fetch import fetch_to_file
from fileapi.operations.aws import OPERATION_RECEIVES
from fileapi.operations.conversions import RunInWorker, reported, run_conversion, stored_options
from fileapi.operations.pipelines import (
    MAX_INPUT_BYTES,
    PIPELINE,
    PIPELINES_ROUTE,
    URL_CONNECT_SECONDS,
    URL_TOTAL_SECONDS,
    StageFailed,
    plan,
    put_outputs,
    run_pipeline,
)
from fileapi.operations.records import Operation, ResultFile, result_key, result_prefix
from fileapi.operations.service import EACH, OUTPUTS, STAGES
from fileapi.operations.transfer import delete_prefix, download, upload
from fileapi.storage.errors import StoreError

if TYPE_CHECKING:
    from fileapi.metering.meter import Meter
    from fileapi.operations.service import OperationService

log = logging.getLogger("fileapi.operations")
# A running operation's record is read this often, so a DELETE stops its conversion within a second.
CANCEL_POLL_SECONDS = 0.5
# An operation whose account's places are all taken goes back to the queue for this long (a new message: its
# receive count starts again, so waiting never fails it).
BUSY_DELAY_SECONDS = 5
# Failures of the services themselves: the message is received again (the work is repeatable).
TRANSIENT = (BotoCoreError, ClientError, StoreError)


class AccountBusy(Exception):
    """The operation's account runs as many operations as its plan lets it: this one waits its turn."""

    def __init__(self, operation: Operation) -> None:
        super().__init__(operation.id)
        self.operation = operation


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


class Executor:
    """Runs queued operations.

    :param run: runs a converter in a conversion worker (`run(function, *args, **kwargs)`).
    :param work_dir: where work folders are made (Lambda: /tmp, up to 10 GB of ephemeral storage).
    :param notify: called with each operation that ended (the webhook deliveries); None: no one is told.
    :param max_receives: past this receive of a message, its operation is failed instead of run again.
    :param egress: where a pipeline's URL inputs and PUT outputs may lead (fileapi.net).
    """

    def __init__(
        self,
        operations: OperationService,
        meter: Meter,
        run: RunInWorker,
        *,
        work_dir: Path | None = None,
        notify: Callable[[Operation], None] | None = None,
        max_receives: int = OPERATION_RECEIVES,
        egress: EgressPolicy = DEPLOYED,
    ) -> None:
        self.operations = operations
        self.uploads = operations.uploads
        self.store = operations.store
        self.meter = meter
        self.run_in_worker = run
        self.work_dir = work_dir
        self.notify = notify
        self.max_receives = max_receives
        self.egress = egress

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
            except AccountBusy as busy:  # its account's places are taken: back to the queue, in its own turn
                try:
                    self.operations.queue(busy.operation, delay_seconds=BUSY_DELAY_SECONDS)
                except TRANSIENT:
                    failures.append({"itemIdentifier": record["messageId"]})
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
        if receives > self.max_receives:
            message = (
                f"the operation stopped before it ended {receives - 1} times (out of memory or time): "
                "send a smaller file, or split it first"
            )
            return self._failed(operation, "too_large", message)
        if not self.operations.claim_run(operation):
            raise AccountBusy(operation)
        started = time.monotonic()
        try:
            with working_for(operation.account_id):  # its conversions wait in its account's turn for a worker
                produced = asyncio.run(self._watched(operation))
        except TRANSIENT:
            raise
        except StageFailed as stopped:  # a pipeline's stage: its error, named, and every stage's report
            details = stopped.details
            return self._failed(operation, stopped.error.code, stopped.message, _ms_since(started), details=details)
        except ApiError as error:  # the input's or the conversion's refusal, as the API answers it
            return self._failed(operation, error.code, error.message, _ms_since(started))
        except Exception:  # the work's own failure, not the input's
            log.exception("operations: %s failed unexpectedly", operation.id)
            message = "unexpected failure; it has been logged"
            return self._failed(operation, "internal_error", message, _ms_since(started))
        finally:
            self.operations.release_run(operation)
        ran_ms = _ms_since(started)
        ended = None if produced is None else self.store.succeed(operation.id, *produced, ran_ms=ran_ms)
        if ended is None:  # cancelled while it ran: its work is stopped, and its files go with it
            self.store.note_ran(operation.id, ran_ms)
            delete_prefix(self.uploads.s3, self.uploads.bucket, result_prefix(operation.account_id, operation.id))
            return self.store.get_operation(operation.id)
        return self._settled(ended)

    async def _watched(self, operation: Operation) -> tuple[tuple[ResultFile, ...], dict[str, object]] | None:
        """`_work`, stopped when the operation stops running meanwhile (cancelled by DELETE, or deleted): its
        record is read every CANCEL_POLL_SECONDS, and a conversion under way is killed with its worker
        (fileapi.isolation.pool). None when it was stopped."""
        work = asyncio.ensure_future(self._work(operation))
        while True:
            done, _ = await asyncio.wait({work}, timeout=CANCEL_POLL_SECONDS)
            if done:
                return work.result()
            current = await asyncio.to_thread(self.store.get_operation, operation.id)
            if current is None or current.ended:
                work.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await work
                return None

    async def _work(self, operation: Operation) -> tuple[tuple[ResultFile, ...], dict[str, object]]:
        """Stream the inputs in, run the conversion (or the pipeline), stream the results out (the folder is
        removed after)."""
        stored = operation.request
        with tempfile.TemporaryDirectory(prefix="op-", dir=self.work_dir) as folder_name:
            folder = Path(folder_name)
            out = folder / "out"
            out.mkdir()
            if stored.route == PIPELINES_ROUTE:
                return await self._pipeline(operation, folder, out)
            conversion = by_path().get(stored.route)
            if conversion is None:
                raise LookupError(f"no conversion {stored.route} in the catalogue")
            options = stored_options(conversion, stored.options, stored.query)
            fetched: dict[str, Path] = {}
            inputs = [self._download(operation, upload_id, folder / f"input-{position}", fetched)
                      for position, upload_id in enumerate(stored.inputs, start=1)]  # fmt: skip
            outcome = await run_conversion(
                conversion, options, inputs, out, self.run_in_worker, from_uploads=not stored.inline
            )
            files, details = reported(conversion, outcome, out)
            return self._results(operation, files), details

    async def _pipeline(
        self, operation: Operation, folder: Path, out: Path
    ) -> tuple[tuple[ResultFile, ...], dict[str, object]]:
        """A pipeline: its inputs downloaded or fetched in order, its stages run, its last stage's files stored and
        PUT where `output` says; every stage's report in the details."""
        given = operation.request.options or {}
        spec = PipelineRequest.model_validate(given[PIPELINE])
        stages = plan(spec)
        inputs = []
        fetched: dict[str, Path] = {}
        for position, source in enumerate(spec.inputs, start=1):
            path = folder / f"input-{position}"
            if source.upload is not None:
                inputs.append(self._download(operation, source.upload, path, fetched))
            else:
                assert source.url is not None
                # In a thread, so that the operation's watch (_watched) runs meanwhile; when it cancels the work,
                # the fetch's socket is shut at once: a cancelled operation keeps no download going after its run
                # is released (a URL dripping a byte each half second held it for the 600 s limit).
                deadline = Deadline(URL_TOTAL_SECONDS)
                try:
                    await asyncio.to_thread(
                        fetch_to_file,
                        source.url,
                        path,
                        max_bytes=int(given[MAX_INPUT_BYTES]),
                        connect_timeout=URL_CONNECT_SECONDS,
                        total_timeout=URL_TOTAL_SECONDS,
                        field=f"inputs[{position - 1}].url",
                        policy=self.egress,
                        deadline=deadline,
                    )
                except asyncio.CancelledError:
                    deadline.cut()
                    raise
                inputs.append(path)
        ran = await run_pipeline(stages, inputs, out, self.run_in_worker)
        details: dict[str, object] = {
            STAGES: [report.model_dump(mode="json", exclude_none=True) for report in ran.stages]
        }
        if ran.error is not None:
            raise StageFailed(ran, details)
        last = stages[-1].conversion
        each = ran.details if isinstance(ran.details, list) else None  # a stage run once per file: its details each
        files, last_details = reported(last, Outcome(ran.files, None if each is not None else ran.details), out)
        if each is not None:
            last_details = {EACH: [reported(last, Outcome(details=item), out)[1] for item in each]}
        results = self._results(operation, files)
        if spec.output is not None:
            details[OUTPUTS] = put_outputs(spec.output, files, self.egress)
        return results, {**last_details, **details}

    def _download(self, operation: Operation, upload_id: str, path: Path, fetched: dict[str, Path]) -> Path:
        """The upload's file in the work folder at `path`, read from S3 once per operation however many times the
        operation names it (`fetched`: the uploads already read; converters only read their inputs)."""
        if upload_id in fetched:
            return fetched[upload_id]
        source = self.uploads.owned(upload_id, operation.account_id)
        self.uploads.stored_size(source)
        download(self.uploads.s3, self.uploads.bucket, source.key, path)
        fetched[upload_id] = path
        return path

    def _results(self, operation: Operation, files: tuple[OutFile, ...]) -> tuple[ResultFile, ...]:
        """Store `files` (each on disk) as the operation's results, with their SHA-256."""
        results = []
        for index, made in enumerate(files):
            assert made.path is not None
            key = result_key(operation.account_id, operation.id, index)
            kept = upload(self.uploads.s3, self.uploads.bucket, key, Path(made.path), content_type=made.media_type)
            field = field_text(made.field) if made.field is not None else None
            results.append(ResultFile(made.name, made.media_type, kept.size, kept.sha256, field))
        return tuple(results)

    def _failed(
        self,
        operation: Operation,
        code: str,
        message: str,
        ran_ms: int | None = None,
        *,
        details: dict[str, object] | None = None,
    ) -> Operation | None:
        ended = self.store.fail(operation.id, code=code, message=message, ran_ms=ran_ms, details=details)
        return self._settled(ended) if ended is not None else self.store.get_operation(operation.id)

    def _settled(self, operation: Operation) -> Operation:
        self.operations.settle(operation, self.meter)
        if self.notify is not None:
            self.notify(operation)
        return operation
