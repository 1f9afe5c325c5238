"""Registering webhook endpoints, and delivering an operation's end to them through SQS with backoff.

One message per endpoint and event goes to the webhooks queue. The deliverer (the Webhooks function, or
the local consumer) posts it, signed; an answer other than 2xx, or none within TIMEOUT_SECONDS, sends it
back to the queue for the next attempt of SCHEDULE_SECONDS, Standard Webhooks' suggested schedule: 8
attempts over 27.6 hours. SQS delays a message at most 15 minutes, so a longer wait is a chain of
messages, each carrying the attempt's number and its due time. After the last attempt the message goes to
the dead-letter queue, whose depth raises an alarm. The `webhook-id` is the same for every attempt of one
event, so a receiver can tell a retry from a new event.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from fileapi.errors import InvalidInput, NotFound
from fileapi.net.addresses import DEPLOYED, EgressPolicy, Target, check_url
from fileapi.net.connection import exchange
from fileapi.operations.records import new_id
from fileapi.webhooks.signing import new_secret, signed_headers
from fileapi.webhooks.store import MAX_WEBHOOKS, Webhook, WebhookStore

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

log = logging.getLogger("fileapi.webhooks")
WEBHOOK_PREFIX = "wh_"
# Seconds to wait before each attempt (the first at once): Standard Webhooks' schedule, 99,305 s in all.
SCHEDULE_SECONDS = (0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000)
MAX_DELAY_SECONDS = 900  # SQS's longest DelaySeconds
TIMEOUT_SECONDS = 15.0


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint, as the queue carries it.

    :param attempt: the number of the attempt to make (0: the first).
    :param not_before: epoch seconds before which it is not attempted (it goes back to the queue).
    """

    webhook_id: str
    account_id: str
    message_id: str
    payload: str
    attempt: int = 0
    not_before: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Delivery:
        return cls(**json.loads(text))


class WebhookService:
    """Endpoints of accounts, and the queueing of their deliveries.

    :param queue_url: the webhooks queue (None: events are not delivered).
    :param policy: where endpoints may be (DEPLOYED: public https only).
    """

    def __init__(
        self,
        store: WebhookStore,
        sqs: SQSClient,
        *,
        queue_url: str | None,
        policy: EgressPolicy = DEPLOYED,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.sqs = sqs
        self.queue_url = queue_url
        self.policy = policy
        self.clock = clock

    def register(self, account_id: str, url: str) -> Webhook:
        """A new endpoint of the account, with a new secret.

        :raises InvalidInput: a URL that is not public HTTPS (fileapi.net.addresses.check_url, naming `url`), or
            the account has MAX_WEBHOOKS endpoints already.
        """
        check_url(url, field="url", policy=self.policy)
        if len(self.store.list(account_id)) >= MAX_WEBHOOKS:
            raise InvalidInput(f"an account has at most {MAX_WEBHOOKS} webhooks: delete one first")
        webhook = Webhook(new_id(WEBHOOK_PREFIX), account_id, url, new_secret(), int(self.clock()))
        self.store.put(webhook)
        return webhook

    def owned(self, account_id: str, webhook_id: str) -> Webhook:
        """:raises NotFound: the account has no such endpoint."""
        webhook = self.store.get(account_id, webhook_id[:64])
        if webhook is None:
            raise NotFound(f"no webhook {webhook_id[:40]!r} for this key's account (GET /v1/webhooks lists them)")
        return webhook

    def enqueue(self, account_id: str, *, event_type: str, data: dict[str, Any], message_id: str) -> int:
        """Queue the event for every endpoint of the account; how many.

        :param message_id: the event's webhook-id (the same for a repeat of the same event).
        """
        if self.queue_url is None:
            return 0
        now = int(self.clock())
        payload = json.dumps({"type": event_type, "timestamp": _iso(now), "data": data})
        hooks = self.store.list(account_id)
        for hook in hooks:
            delivery = Delivery(hook.id, account_id, message_id, payload)
            self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=delivery.to_json())
        return len(hooks)


class Deliverer:
    """Attempts deliveries taken from the queue.

    :param schedule: the wait before each attempt, seconds (the first is made when queued).
    :param send: POSTs a body to a checked target and returns the status (injected in tests).
    """

    def __init__(
        self,
        store: WebhookStore,
        sqs: SQSClient,
        *,
        queue_url: str,
        dead_letter_url: str | None,
        policy: EgressPolicy = DEPLOYED,
        schedule: tuple[int, ...] = SCHEDULE_SECONDS,
        timeout_seconds: float = TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.time,
        send: Callable[[Target, bytes, dict[str, str]], int] | None = None,
    ) -> None:
        self.store = store
        self.sqs = sqs
        self.queue_url = queue_url
        self.dead_letter_url = dead_letter_url
        self.policy = policy
        self.schedule = schedule
        self.clock = clock
        self.send = send or (lambda target, body, headers: post(target, body, headers, policy, timeout=timeout_seconds))

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """Process an SQS batch event (every message is settled by sending a follow-up, so none fails)."""
        for record in event.get("Records", []):
            try:
                delivery = Delivery.from_json(record["body"])
            except (ValueError, TypeError, KeyError):
                log.error("webhooks: a message that is not a delivery was dropped")
                continue
            self.deliver(delivery)
        return {"batchItemFailures": []}

    def deliver(self, delivery: Delivery) -> bool:
        """Make the delivery's attempt when it is due (else queue it again until it is); True when delivered."""
        now = int(self.clock())
        if delivery.not_before > now:
            self._queue(delivery, delay=delivery.not_before - now)
            return False
        webhook = self.store.get(delivery.account_id, delivery.webhook_id)
        if webhook is None:
            return False  # the endpoint was deleted: its deliveries end here
        body = delivery.payload.encode()
        headers = signed_headers(webhook.secret, message_id=delivery.message_id, timestamp=now, body=body)
        try:
            status = self.send(check_url(webhook.url, field="url", policy=self.policy), body, headers)
        except (InvalidInput, OSError) as exc:
            status, reason = 0, type(exc).__name__
        else:
            reason = f"status {status}"
        if 200 <= status < 300:
            return True
        following = delivery.attempt + 1
        if following >= len(self.schedule):
            log.warning("webhooks: %s to %s failed %d times; dead-lettered", delivery.message_id, webhook.id, following)
            if self.dead_letter_url is not None:
                self.sqs.send_message(QueueUrl=self.dead_letter_url, MessageBody=delivery.to_json())
            return False
        log.info("webhooks: attempt %d of %s failed (%s)", following, delivery.message_id, reason)
        wait = self.schedule[following]
        self._queue(replace(delivery, attempt=following, not_before=now + wait), delay=wait)
        return False

    def _queue(self, delivery: Delivery, *, delay: int) -> None:
        self.sqs.send_message(
            QueueUrl=self.queue_url,
            MessageBody=delivery.to_json(),
            DelaySeconds=max(0, min(MAX_DELAY_SECONDS, delay)),
        )


def post(target: Target, body: bytes, headers: dict[str, str], policy: EgressPolicy, *, timeout: float) -> int:
    """POST a JSON `body` to the checked target, connected to at its checked address; the answer's status
    (redirects are not followed: a 3xx is the answer).

    :param timeout: seconds for the whole exchange, connecting included.
    :raises OSError: the connection failed or timed out.
    """
    headers = {**headers, "Content-Type": "application/json"}
    answer = exchange(
        target, "POST", body=body, headers=headers, policy=policy, connect_timeout=timeout, total_timeout=timeout
    )
    return answer.status


def _iso(epoch_seconds: int) -> str:
    from fileapi.models.files import iso_seconds

    return iso_seconds(epoch_seconds)
