"""The file services, assembled: uploads, operations, idempotency keys and webhooks over one table, bucket and
pair of queues (built by the composition root, fileapi.services)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fileapi.idempotency import IdempotencyStore
from fileapi.net.addresses import EgressPolicy
from fileapi.operations.aws import s3_client, sqs_client
from fileapi.operations.executor import Executor
from fileapi.operations.records import Operation
from fileapi.operations.service import OperationService
from fileapi.operations.store import FileStore
from fileapi.operations.uploads import UploadService
from fileapi.settings import Settings
from fileapi.storage.table import DynamoTable
from fileapi.webhooks.delivery import Deliverer, WebhookService
from fileapi.webhooks.store import WebhookStore

if TYPE_CHECKING:
    from fileapi.metering.meter import Meter
    from fileapi.operations.conversions import RunInWorker


@dataclass(frozen=True)
class FileServices:
    """Uploads, operations, idempotency keys and webhooks over one table, bucket and pair of queues."""

    settings: Settings
    table: DynamoTable
    uploads: UploadService
    operations: OperationService
    idempotency: IdempotencyStore
    webhooks: WebhookService

    @property
    def egress(self) -> EgressPolicy:
        """Where URLs the service calls may lead (webhooks, URL inputs, PUT outputs): public https, or loopback and
        http too when FILEAPI_URLS_ALLOW_LOOPBACK is set (local use)."""
        return EgressPolicy(local=self.settings.urls_allow_loopback)

    def notify(self, operation: Operation) -> None:
        """Queue the deliveries of an ended operation to the account's webhooks (webhook-id msg_<operation>:
        the same for a repeat of the same end)."""
        data = self.operations.view(operation).model_dump(mode="json", by_alias=True, exclude_none=True)
        self.webhooks.enqueue(
            operation.account_id,
            event_type=f"operation.{operation.status.value}",
            data=data,
            message_id=f"msg_{operation.id}",
        )

    def executor(self, meter: Meter, run: RunInWorker) -> Executor:
        """The executor of queued operations, running conversions through `run` (in conversion workers),
        refunding through `meter`, telling the webhooks."""
        return Executor(
            self.operations, meter, run, work_dir=self.settings.work_dir, notify=self.notify, egress=self.egress
        )

    def deliverer(self, **options: Any) -> Deliverer:
        """The deliverer of queued webhook events (`options`: Deliverer's keyword arguments, for tests).

        :raises ValueError: there is no webhooks queue configured.
        """
        if self.settings.webhooks_queue_url is None:
            raise ValueError("FILEAPI_WEBHOOKS_QUEUE_URL is not set")
        configured = {"schedule": self.settings.webhook_schedule} if self.settings.webhook_schedule else {}
        return Deliverer(
            self.webhooks.store,
            self.webhooks.sqs,
            queue_url=self.settings.webhooks_queue_url,
            dead_letter_url=self.settings.webhooks_dlq_url,
            policy=self.egress,
            **{**configured, **options},
        )


def build_file_services(settings: Settings, table: DynamoTable) -> FileServices:
    """The services over `table` and the bucket and queues `settings` name."""
    store = FileStore(table)
    s3 = s3_client(settings)
    sqs = sqs_client(settings)
    uploads = UploadService(
        store,
        s3,
        bucket=settings.bucket,
        url_seconds=settings.upload_url_seconds,
        retention_days=settings.files_retention_days,
    )
    operations = OperationService(
        uploads, sqs, queue_url=settings.operations_queue_url, link_seconds=settings.result_link_seconds
    )
    webhooks = WebhookService(
        WebhookStore(table),
        sqs,
        queue_url=settings.webhooks_queue_url,
        policy=EgressPolicy(local=settings.urls_allow_loopback),
    )
    idempotency = IdempotencyStore(table, s3, bucket=settings.bucket)
    return FileServices(settings, table, uploads, operations, idempotency, webhooks)
