"""The payment provider's customer portal (Stripe Billing Portal), where plan, payment method,
invoices and cancellation are managed."""

from __future__ import annotations

from collections.abc import Callable

from fileapi.errors import ConversionFailed, InvalidInput, ServiceUnavailable
from fileapi.metering.accounts import Account


class BillingPortal:
    """Creates portal sessions through the `stripe` package.

    :param secret_key: the Stripe secret key (None when billing is not configured); a callable so
        that it can be fetched lazily (SSM) and rotated.
    :param api_base: the Stripe API's base URL (a local stand-in in tests).
    """

    def __init__(self, secret_key: Callable[[], str | None], *, return_url: str, api_base: str | None = None) -> None:
        self.secret_key = secret_key
        self.return_url = return_url
        self.api_base = api_base

    def session_url(self, account: Account) -> str:
        """A one-time portal URL for the account's customer.

        :raises ServiceUnavailable: billing is not configured here.
        :raises InvalidInput: the account has no customer at the payment provider.
        """
        import stripe

        key = self.secret_key()
        if not key:
            raise ServiceUnavailable("billing is not configured: no Stripe secret key is set")
        if not account.customer_id:
            raise InvalidInput("this key's account has no billing customer (it was not created by a checkout)")
        client = stripe.StripeClient(
            key,
            base_addresses={"api": self.api_base} if self.api_base else None,
            max_network_retries=1,
        )
        try:
            session = client.v1.billing_portal.sessions.create(
                params={"customer": account.customer_id, "return_url": self.return_url}
            )
        except stripe.StripeError as exc:
            raise ConversionFailed(f"the payment provider refused the portal session: {type(exc).__name__}") from None
        return str(session.url)
