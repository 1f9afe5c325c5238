"""The service's file services over moto's server (S3, SQS, DynamoDB on one endpoint), for the benches that run
operations as a client does (bench.pipelines, bench.pipeline_memory, bench.operations_cost).

`moto_stack` makes a new bucket, queues and table and composes the services over them in this process;
`attached_stack` composes them again over the same resources in another process (the `Where` of the first), so
an Operations runner can have a process of its own. Either way the stack is this process's file services and
stores (fileapi.services) while it is open, and its conversion workers are stopped when it closes.
"""

from __future__ import annotations

import dataclasses
import io
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fileapi.file_services import FileServices
    from fileapi.local.queues import QueueConsumer
    from fileapi.metering.storage import Stores
    from fileapi.settings import Settings
    from fileapi.storage.table import DynamoTable


@dataclass(frozen=True)
class Where:
    """What another process needs to compose the same stack: the endpoint and the resources' names."""

    endpoint: str
    table: str
    bucket: str
    operations_queue_url: str
    webhooks_queue_url: str
    webhooks_dlq_url: str


@dataclass(frozen=True)
class Stack:
    """The file services and stores over one table, bucket and pair of queues on moto's server."""

    where: Where
    settings: Settings
    table: DynamoTable
    stores: Stores
    services: FileServices

    def consumer(self) -> QueueConsumer:
        """The local consumer of the operations queue, running each message through the Operations function's
        executor (its conversions in this process's conversion workers, its refunds through a Meter)."""
        from fileapi.local.queues import QueueConsumer
        from fileapi.metering.meter import Meter
        from fileapi.services import run_in_worker

        executor = self.services.executor(Meter(self.stores.admission), run_in_worker)
        return QueueConsumer(self.services.operations.sqs, self.where.operations_queue_url, executor.handle)

    def new_key(self, name: str) -> str:
        """A new business-plan API key."""
        from fileapi.metering.admin import create_key

        return create_key(self.stores.accounts, email=f"{name}-{uuid.uuid4().hex[:6]}@example.com", plan="business")


@contextmanager
def moto_stack(endpoint: str, *, name: str) -> Iterator[Stack]:
    """A new bucket, queues and table (named after `name`) on moto's server at `endpoint`, and the services."""
    from fileapi.operations.aws import create_local_resources
    from fileapi.settings import load_settings

    settings = dataclasses.replace(load_settings(), s3_endpoint=endpoint, sqs_endpoint=endpoint)
    resources = create_local_resources(settings, prefix=f"{name[:1]}{uuid.uuid4().hex[:8]}-")
    where = Where(
        endpoint, f"fileapi-{name}-{uuid.uuid4().hex[:8]}", resources.bucket, resources.operations_queue_url,
        resources.webhooks_queue_url, resources.webhooks_dlq_url,
    )  # fmt: skip
    with attached_stack(where) as stack:
        yield stack


@contextmanager
def attached_stack(where: Where) -> Iterator[Stack]:
    """The services over the resources `where` names (the table created if absent)."""
    from fileapi.file_services import build_file_services
    from fileapi.local.dynamo import local_table
    from fileapi.metering.dynamo.connect import dynamo_stores
    from fileapi.services import stop_workers, use_file_services, use_stores
    from fileapi.settings import load_settings

    settings = dataclasses.replace(
        load_settings(), s3_endpoint=where.endpoint, sqs_endpoint=where.endpoint, bucket=where.bucket,
        operations_queue_url=where.operations_queue_url, webhooks_queue_url=where.webhooks_queue_url,
        webhooks_dlq_url=where.webhooks_dlq_url,
    )  # fmt: skip
    table = local_table(where.table, where.endpoint)
    stores = dynamo_stores(table)
    services = build_file_services(settings, table)
    use_stores(stores)
    use_file_services(services)
    try:
        yield Stack(where, settings, table, stores, services)
    finally:
        stop_workers()
        use_stores(None)
        use_file_services(None)


@contextmanager
def local_endpoint() -> Iterator[str]:
    """moto's server (DynamoDB, S3, SQS) for the run, stopped after it, with its credentials set."""
    from fileapi.local import dynamo

    process, endpoint = dynamo.start_process()
    try:
        for name, value in dynamo.LOCAL_CREDENTIALS.items():
            os.environ.setdefault(name, value)
        yield endpoint
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Moved:
    """Object bytes that crossed S3, each way: the service's (counted by `count_s3_bytes`) and the client's
    (added by the bench as it uploads and downloads)."""

    service_sent: int = 0  # PutObject and UploadPart bodies
    service_received: int = 0  # GetObject bodies
    client_sent: int = 0  # presigned POST uploads
    client_received: int = 0  # result downloads

    @property
    def total(self) -> int:
        return self.service_sent + self.service_received + self.client_sent + self.client_received

    def reset(self) -> None:
        self.service_sent = self.service_received = self.client_sent = self.client_received = 0


# S3 calls that carry an object's bytes from the caller, and calls that copy inside S3 (bytes this counter would
# not see: a bench that meets one fails rather than under-count).
SENDS_BODY = frozenset({"PutObject", "UploadPart"})
COPIES = frozenset({"CopyObject", "UploadPartCopy"})


def count_s3_bytes(s3: Any, moved: Moved) -> None:
    """Count every object body the S3 client `s3` sends (PutObject, UploadPart: the Body given, before botocore
    wraps it) and receives (GetObject: the body's Content-Length) into `moved`.

    :raises RuntimeError: (from the call) a copy inside S3, or a body of a kind whose size is unknown.
    """

    def sent(params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name in COPIES:
            raise RuntimeError(f"{model.name}: a copy inside S3 is not counted by bench.moto_stack")
        if model.name in SENDS_BODY:
            moved.service_sent += _body_size(params.get("Body", b""))

    def received(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "GetObject":
            moved.service_received += int(parsed.get("ContentLength", 0))

    s3.meta.events.register("before-parameter-build.s3", sent)
    s3.meta.events.register("after-call.s3", received)


def _body_size(body: Any) -> int:
    if isinstance(body, bytes | bytearray | memoryview):
        return len(body)
    if isinstance(body, str):
        return len(body.encode())
    if isinstance(body, io.IOBase) and body.seekable():
        position = body.tell()
        end = body.seek(0, io.SEEK_END)
        body.seek(position)
        return end - position
    raise RuntimeError(f"an S3 body of type {type(body).__name__}: its size is unknown to bench.moto_stack")


@contextmanager
def local_api() -> Iterator[Any]:
    """The whole API as the local server composes it, in this process (a TestClient), over the open stack."""
    from fastapi.testclient import TestClient

    from fileapi.local.server import create_local_app
    from fileapi.telemetry import logger

    logger.setLevel("WARNING")  # one access record per request would bury the rows
    with TestClient(create_local_app()) as api:
        yield api
