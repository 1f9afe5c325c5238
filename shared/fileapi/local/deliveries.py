"""`fileapi keys deliver`: send the keys whose e-mail has not gone out yet (see fileapi.account.delivery)."""

from __future__ import annotations

import sys

from fileapi.account.delivery import KeyDelivery
from fileapi.account.mailer import create_mailer
from fileapi.metering.storage import AccountStore
from fileapi.settings import Settings


def send_pending_deliveries(store: AccountStore, settings: Settings) -> int:
    """Send every pending key delivery with the configured mailer; prints the counts.

    :returns: the exit status: 0 when every one was sent, 1 when some are still pending.
    """
    sent, failed = KeyDelivery(store, create_mailer(settings), on_failure=lambda attempts: None).send_pending()
    print(f"{sent} sent, {failed} still pending")
    if failed:
        print("fileapi: some keys could not be e-mailed; check the mailer and run this again", file=sys.stderr)
        return 1
    return 0
