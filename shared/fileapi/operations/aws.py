"""The S3 and SQS clients of uploads and operations, and the local bucket and queues on moto's server.

Made with botocore directly, as the DynamoDB client is (boto3 pulls in s3transfer and multiprocessing, which
these calls do not need). Locally, `fileapi run` and the test fixtures point both at the moto server that
already serves DynamoDB: moto serves every service on one port.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import botocore.session
from botocore.config import Config

from fileapi.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient

# S3 and SQS calls are idempotent here (a PUT of the same object, a GET, a message whose handler is
# idempotent), so botocore's standard retries are kept: three attempts, with backoff.
CONNECT_TIMEOUT_SECONDS = 2.0
READ_TIMEOUT_SECONDS = 60.0
OPERATIONS_QUEUE = "fileapi-operations"
WEBHOOKS_QUEUE = "fileapi-webhooks"
DEAD_LETTER_SUFFIX = "-dlq"
# An operation message is received at most this many times; on the last receive the executor fails the
# operation instead of running it again (the template's maxReceiveCount is one more, for the DLQ).
OPERATION_RECEIVES = 3

_lock = threading.Lock()
_clients: dict[tuple[str, str | None, str], Any] = {}


def _client(service: str, *, region: str, endpoint_url: str | None) -> Any:
    key = (service, endpoint_url, region)
    with _lock:
        client = _clients.get(key)
        if client is None:
            config = Config(
                retries={"total_max_attempts": 3, "mode": "standard"},
                connect_timeout=CONNECT_TIMEOUT_SECONDS,
                read_timeout=READ_TIMEOUT_SECONDS,
                signature_version="s3v4" if service == "s3" else None,
                s3={"addressing_style": "path"} if endpoint_url else None,
            )
            session = botocore.session.get_session()
            client = session.create_client(service, region_name=region, endpoint_url=endpoint_url, config=config)
            _clients[key] = client
    return client


def s3_client(settings: Settings) -> S3Client:
    """The process's S3 client (FILEAPI_S3_ENDPOINT, else AWS's)."""
    return cast("S3Client", _client("s3", region=settings.region, endpoint_url=settings.s3_endpoint))


def sqs_client(settings: Settings) -> SQSClient:
    """The process's SQS client (FILEAPI_SQS_ENDPOINT, else AWS's)."""
    return cast("SQSClient", _client("sqs", region=settings.region, endpoint_url=settings.sqs_endpoint))


@dataclass(frozen=True)
class LocalResources:
    """The bucket and queue URLs `create_local_resources` made, as the settings' variables name them."""

    bucket: str
    operations_queue_url: str
    webhooks_queue_url: str
    webhooks_dlq_url: str

    def environment(self) -> dict[str, str]:
        """The environment variables that point the service at these resources."""
        return {
            "FILEAPI_BUCKET": self.bucket,
            "FILEAPI_OPERATIONS_QUEUE_URL": self.operations_queue_url,
            "FILEAPI_WEBHOOKS_QUEUE_URL": self.webhooks_queue_url,
            "FILEAPI_WEBHOOKS_DLQ_URL": self.webhooks_dlq_url,
        }


def create_local_resources(settings: Settings, *, prefix: str = "") -> LocalResources:
    """Create the bucket and the queues (each with its dead-letter queue, redriven after
    OPERATION_RECEIVES + 1 receives) on the settings' local endpoints, if absent; `prefix` names a separate
    set (tests)."""
    s3 = s3_client(settings)
    bucket = f"{prefix}{settings.bucket}"
    existing = {entry["Name"] for entry in s3.list_buckets().get("Buckets", [])}
    if bucket not in existing:
        s3.create_bucket(Bucket=bucket)
    sqs = sqs_client(settings)
    urls: dict[str, str] = {}
    for name in (OPERATIONS_QUEUE, WEBHOOKS_QUEUE):
        dlq_url = sqs.create_queue(QueueName=f"{prefix}{name}{DEAD_LETTER_SUFFIX}")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        redrive = f'{{"deadLetterTargetArn": "{dlq_arn}", "maxReceiveCount": "{OPERATION_RECEIVES + 1}"}}'
        urls[name] = sqs.create_queue(
            QueueName=f"{prefix}{name}", Attributes={"RedrivePolicy": redrive, "VisibilityTimeout": "900"}
        )["QueueUrl"]
        urls[name + DEAD_LETTER_SUFFIX] = dlq_url
    return LocalResources(
        bucket=bucket,
        operations_queue_url=urls[OPERATIONS_QUEUE],
        webhooks_queue_url=urls[WEBHOOKS_QUEUE],
        webhooks_dlq_url=urls[WEBHOOKS_QUEUE + DEAD_LETTER_SUFFIX],
    )
