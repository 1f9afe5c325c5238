"""The local billing stand-in: the paid flow on a laptop without a Stripe account.

`fileapi run` turns it on unless a Stripe secret key is configured (or FILEAPI_BILLING_STANDIN=0). Then:

- `fileapi checkout --email you@example.com --plan pro` signs a `checkout.session.completed` event with the
  endpoint secret and delivers it to POST /webhooks/stripe: the same code path as Stripe's deliveries
  (signature checked, each event once), so the key is issued and e-mailed to the local outbox.
- GET /v1/billing/portal answers 303 to a local portal page (`LocalBillingPortal`) instead of Stripe's; the
  page shows the plan and this month's usage and changes the plan or cancels, each by a signed
  `customer.subscription.*` event through the same webhook code.

Portal sessions are tokens signed with the endpoint secret (HMAC-SHA256), valid for `SESSION_SECONDS`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable

from fileapi.errors import InvalidInput
from fileapi.metering.accounts import Account

SESSION_SECONDS = 3600
PORTAL_PATH = "/local/billing/portal"


def session_token(account_id: str, *, secret: str, now: float | None = None) -> str:
    """A portal session for `account_id`, valid SESSION_SECONDS."""
    expires = int((time.time() if now is None else now) + SESSION_SECONDS)
    payload = f"{account_id}.{expires}"
    return f"{payload}.{_mac(payload, secret)}"


def session_account(token: str, *, secret: str, now: float | None = None) -> str:
    """The account id of a valid, unexpired portal session.

    :raises InvalidInput: the token was not made with `secret`, or it expired.
    """
    payload, _, mac = token.rpartition(".")
    account_id, _, expires = payload.partition(".")
    if not payload or not hmac.compare_digest(mac, _mac(payload, secret)) or not expires.isdigit():
        raise InvalidInput("this portal session is not valid: open the portal again from GET /v1/billing/portal")
    if int(expires) < (time.time() if now is None else now):
        raise InvalidInput("this portal session expired: open the portal again from GET /v1/billing/portal")
    return account_id


def _mac(payload: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


class LocalBillingPortal:
    """Portal sessions on the local server's own portal page (the stand-in of Stripe's customer portal).

    :param secret: the webhook endpoint secret (signs sessions); a callable, as the configured secret is.
    :param base_url: the local server's address, e.g. http://127.0.0.1:3000.
    """

    def __init__(self, secret: Callable[[], str | None], *, base_url: str) -> None:
        self.secret = secret
        self.base_url = base_url.rstrip("/")

    def session_url(self, account: Account) -> str:
        """The local portal page for the account.

        :raises InvalidInput: the account has no billing customer (it was not made by a checkout).
        """
        if not account.customer_id:
            raise InvalidInput(
                "this key's account has no billing customer (it was not created by a checkout): "
                "make one with `fileapi checkout --email you@example.com --plan pro`"
            )
        secret = self.secret()
        if not secret:
            raise InvalidInput("the billing stand-in has no webhook secret")
        return f"{self.base_url}{PORTAL_PATH}?session={session_token(account.account_id, secret=secret)}"
