"""Every issued key reaches its holder: a key is stored with its pending delivery in one write, then e-mailed,
then marked delivered (its clear text forgotten).

A send that fails is counted on the delivery and reported (the KeyDeliveryFailures metric, watched by an
alarm), and the caller fails too, so that the payment provider's redelivery of the event finishes it; a
pending delivery has no expiry, and `fileapi keys deliver` sends whatever is still pending.
"""

from __future__ import annotations

from collections.abc import Callable

from fileapi.account.mailer import Mailer
from fileapi.errors import ServiceUnavailable
from fileapi.metering.storage import AccountStore, PendingDelivery, guarded

WELCOME_SUBJECT = "Your API key"


def welcome_text(delivery: PendingDelivery) -> str:
    """The message that carries a new subscription's key."""
    return (
        f"Welcome! Your subscription is active on the {delivery.plan} plan.\n\nYour API key: {delivery.key}\n\n"
        "Keep it secret: send it as 'Authorization: Bearer <key>'.\n"
    )


def _report(attempts: int) -> None:
    from fileapi.telemetry import report_key_delivery_failure

    report_key_delivery_failure(attempts)


class KeyDelivery:
    """Sends pending key deliveries.

    :param on_failure: called with the failed sends so far after each failure (metrics and logs).
    """

    def __init__(self, store: AccountStore, mailer: Mailer, *, on_failure: Callable[[int], None] = _report) -> None:
        self.store = store
        self.mailer = mailer
        self.on_failure = on_failure

    def finish(self, account_id: str) -> bool:
        """Send the account's pending delivery, if it has one, and mark it delivered.

        :returns: True when a pending delivery was sent now; False when there was none.
        :raises ServiceUnavailable: the message could not be sent (the delivery stays pending, counted).
        """
        delivery = guarded(lambda: self.store.pending_delivery(account_id))
        if delivery is None:
            return False
        self.send(delivery)
        return True

    def send(self, delivery: PendingDelivery) -> None:
        """E-mail `delivery` and mark it delivered.

        :raises ServiceUnavailable: the message could not be sent (the delivery stays pending, counted).
        """
        try:
            self.mailer.send(to=delivery.email, subject=WELCOME_SUBJECT, text=welcome_text(delivery))
        except Exception as exc:
            attempts = guarded(lambda: self.store.note_delivery_failure(delivery.account_id))
            self.on_failure(attempts)
            raise ServiceUnavailable(
                f"the new key could not be e-mailed ({type(exc).__name__}); it stays pending and is sent on retry"
            ) from None
        guarded(lambda: self.store.mark_delivered(delivery.account_id))

    def send_pending(self, *, limit: int = 1000) -> tuple[int, int]:
        """Send every pending delivery (an operator's command); returns (sent, failed)."""
        sent = failed = 0
        for delivery in guarded(lambda: self.store.list_pending_deliveries(limit=limit)):
            try:
                self.send(delivery)
            except ServiceUnavailable:
                failed += 1
            else:
                sent += 1
        return sent, failed
