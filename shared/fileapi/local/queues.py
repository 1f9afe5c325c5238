"""The local stand-in for the Operations and Webhooks functions and their SQS triggers (`fileapi operations`,
which `fileapi run` starts): a process of their own, with the Operations function's settings from template.yaml
(its long deadline and unbounded answers), whose threads poll the queues of moto's server and hand each
message to the same handler the function runs, as the event an SQS-triggered Lambda receives: operations as
many at once as the process has conversion workers.

Short polls only (WaitTimeSeconds=0, a pause between empty polls): moto's server answers one request at a
time, and a long poll would hold every DynamoDB call of the API behind it. As Lambda's event source
mapping does, a message the handler reports in `batchItemFailures` is left to be received again (here
after RETRY_VISIBILITY_SECONDS), and every other is deleted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fileapi.local.template import TEMPLATE_PATH, load_template

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient
    from mypy_boto3_sqs.type_defs import MessageTypeDef

log = logging.getLogger("fileapi.local")
POLL_SECONDS = 0.25
RETRY_VISIBILITY_SECONDS = 2
STOP_SECONDS = 30
OPERATIONS_FUNCTION = "OperationsFunction"
Handler = Callable[[dict[str, Any]], dict[str, Any]]


def sqs_event(messages: list[MessageTypeDef], queue_arn: str) -> dict[str, Any]:
    """The event Lambda gives an SQS-triggered function for `messages` (the fields the handlers read)."""
    return {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": dict(message.get("Attributes", {})),
                "messageAttributes": {},
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
            }
            for message in messages
        ]
    }


class QueueConsumer:
    """Polls `queue_url` and runs `handler` on each batch of at most `batch_size` messages, in `threads` threads
    at once (as Lambda runs up to its reserved concurrency of instances)."""

    def __init__(
        self, sqs: SQSClient, queue_url: str, handler: Handler, *, batch_size: int = 1, threads: int = 1
    ) -> None:
        self.sqs = sqs
        self.queue_url = queue_url
        self.handler = handler
        self.batch_size = batch_size
        self.threads = threads
        self.queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def poll_once(self) -> int:
        """Receive one batch and handle it; how many messages it held."""
        received = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=0,
            MessageSystemAttributeNames=["ApproximateReceiveCount"],
        )
        messages = received.get("Messages", [])
        if not messages:
            return 0
        try:
            answer = self.handler(sqs_event(messages, self.queue_arn))
            failed = {str(entry["itemIdentifier"]) for entry in answer.get("batchItemFailures", [])}
        except Exception:
            log.exception("local queue consumer: the handler raised; the batch will be received again")
            failed = {message["MessageId"] for message in messages}
        for message in messages:
            if message["MessageId"] in failed:
                self.sqs.change_message_visibility(
                    QueueUrl=self.queue_url,
                    ReceiptHandle=message["ReceiptHandle"],
                    VisibilityTimeout=RETRY_VISIBILITY_SECONDS,
                )
            else:
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return len(messages)

    def start(self) -> None:
        """Poll in `threads` daemon threads until `stop`."""
        name = f"sqs:{self.queue_url.rsplit('/', 1)[-1]}"
        self._threads = [
            threading.Thread(target=self._loop, name=f"{name}:{index}", daemon=True) for index in range(self.threads)
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop polling; wait up to STOP_SECONDS in all for the batches under way."""
        self.stopping()
        deadline = time.monotonic() + STOP_SECONDS
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def stopping(self) -> None:
        """Poll no more, without waiting (a signal handler's part): a poll that fails from now on is not logged,
        as the local endpoint stops at the same time."""
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                handled = self.poll_once()
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("local queue consumer: polling failed")
                handled = 0
            if not handled:
                self._stop.wait(POLL_SECONDS)


def start_consumers() -> list[QueueConsumer]:
    """Consumers of the configured operations and webhooks queues, started (the operations run the catalogue's
    conversions in this process's conversion workers)."""
    from fileapi.services import get_file_services, get_meter, run_in_worker

    services = get_file_services()
    settings = services.settings
    consumers = []
    if settings.operations_queue_url:
        executor = services.executor(get_meter(), run_in_worker)
        # As many operations at once as there are conversion workers (each runs its conversions in one).
        consumers.append(
            QueueConsumer(
                services.operations.sqs,
                settings.operations_queue_url,
                executor.handle,
                threads=settings.conversion_workers,
            )
        )
    if settings.webhooks_queue_url:
        consumers.append(
            QueueConsumer(
                services.webhooks.sqs, settings.webhooks_queue_url, services.deliverer().handle, batch_size=10
            )
        )
    for consumer in consumers:
        consumer.start()
    return consumers


def operations_environment(template_path: Path = TEMPLATE_PATH) -> dict[str, str]:
    """The environment variables the template sets on the Operations function (its scalar ones: its deadline,
    its answers' bound), which `fileapi operations` runs with."""
    resource = load_template(template_path)["Resources"][OPERATIONS_FUNCTION]
    variables = resource["Properties"].get("Environment", {}).get("Variables", {})
    return {name: str(value) for name, value in variables.items() if isinstance(value, str | int | float)}


def serve_operations(*, announce: bool = True) -> None:
    """Run the operations and webhook consumers until SIGTERM or SIGINT (`fileapi operations`), saying so on
    standard output when `announce`."""
    import os
    import signal

    for name, value in operations_environment().items():
        os.environ[name] = value
    from fileapi.services import start_workers, stop_workers

    stopped = threading.Event()
    consumers: list[QueueConsumer] = []

    def stop(*_: object) -> None:
        stopped.set()
        for consumer in consumers:
            consumer.stopping()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    try:
        consumers += start_consumers()
    except Exception:
        if stopped.is_set():
            return  # told to stop while starting: the local endpoint may be gone already (Ctrl-C stops it too)
        raise
    start_workers()
    if announce:
        print("operations and webhook deliveries: polling", flush=True)
    try:
        stopped.wait()
    finally:
        for consumer in consumers:
            consumer.stop()
        stop_workers()
