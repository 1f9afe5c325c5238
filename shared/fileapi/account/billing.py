"""Stripe webhook events: key issuance after checkout and subscription status changes.

- The Stripe-Signature header is verified with the endpoint secret by the `stripe` package (HMAC-SHA256
  over timestamp and body); a signature dated more than 5 minutes before or after now is refused. A bad,
  stale or future one is 400.
- The fields read are validated as models (`fileapi.account.stripe_models`) before anything is written: a
  delivery that does not fit is 400 and changes nothing.
- Each event id is processed once: it is claimed with a conditional write first, so replays and concurrent
  deliveries do nothing (and issue no second key); a failed processing releases it so Stripe's retry runs it.
- An account belongs to the Stripe customer that paid for it, never to the e-mail address typed at checkout
  (Stripe does not verify it). checkout.session.completed (plan: the session's `metadata.plan`):
  - the customer has an account: it is moved to the plan and made active; a key of it whose delivery had
    not finished is sent now, else the customer is told their key keeps working;
  - otherwise a new account with a new key is made for the customer, even when the address already has an
    account of another customer (that account is not touched); the key is stored with its pending e-mail
    in one write and sent to the address (`fileapi.account.delivery`).
- customer.subscription.updated / customer.subscription.deleted: the account of that customer (no other)
  gets the subscription's status (deleted: canceled) and plan (the subscription's `metadata.plan`, else the
  first item's price `lookup_key`, when it names a plan). Anything but active or trialing makes the key
  answer 403 subscription_inactive.
- Other event types are acknowledged and ignored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from fileapi.account.delivery import KeyDelivery
from fileapi.account.mailer import Mailer
from fileapi.account.stripe_models import SUBSCRIPTION_DELETED, CheckoutSession, Subscription, parse_event
from fileapi.errors import InvalidInput, ServiceUnavailable
from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, issue_key
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.plans import UnknownPlan
from fileapi.metering.storage import AccountExists, AccountStore, guarded

EVENT_RETENTION_SECONDS = 30 * 86_400
# Stripe's own default tolerance, applied both ways: a signature dated further ahead is as suspect as a stale one.
SIGNATURE_TOLERANCE_SECONDS = 300


class BillingEvents:
    """Handles verified Stripe events.

    :param webhook_secret: the endpoint's signing secret (whsec_...); a callable so that it can be
        fetched lazily (SSM) and None when billing is not configured.
    :param clock: epoch seconds (injected in tests).
    :param delivery: sends new keys (default: over `store` and `mailer`).
    """

    def __init__(
        self,
        store: AccountStore,
        mailer: Mailer,
        webhook_secret: Callable[[], str | None],
        *,
        clock: Callable[[], float] = time.time,
        on_account_change: Callable[[str], None] | None = None,
        delivery: KeyDelivery | None = None,
    ) -> None:
        self.store = store
        self.mailer = mailer
        self.webhook_secret = webhook_secret
        self.clock = clock
        self.on_account_change = on_account_change
        self.plans = PlanCatalog(store)
        self.delivery = delivery or KeyDelivery(store, mailer)

    def handle(self, payload: bytes, signature: str | None) -> str:
        """Verify, validate and process one delivery; returns what was done (for the log, never content).

        :raises InvalidInput: a missing, wrong, stale or future signature, or an event that does not fit.
        :raises ServiceUnavailable: billing is not configured, or a new key could not be e-mailed yet.
        """
        event, subject = parse_event(self._verify(payload, signature))
        if subject is None:
            return "ignored"
        if isinstance(subject, CheckoutSession):
            plan = self._checkout_plan(subject)
        event_id = event.id
        if not guarded(
            lambda: self.store.claim_event(event_id, expires_at=int(self.clock()) + EVENT_RETENTION_SECONDS)
        ):
            return "duplicate"
        try:
            if isinstance(subject, CheckoutSession):
                return self._checkout_completed(subject, plan)
            return self._subscription_changed(subject, deleted=event.type == SUBSCRIPTION_DELETED)
        except BaseException:
            guarded(lambda: self.store.release_event(event_id))
            raise

    def _verify(self, payload: bytes, signature: str | None) -> Any:
        import stripe

        secret = self.webhook_secret()
        if not secret:
            raise ServiceUnavailable("billing is not configured: no Stripe webhook secret is set")
        if not signature:
            raise InvalidInput("missing Stripe-Signature header")
        signed_at = _signed_at(signature)
        if abs(self.clock() - signed_at) > SIGNATURE_TOLERANCE_SECONDS:
            raise InvalidInput("the Stripe signature is dated more than 5 minutes from now: check the clock")
        try:
            # tolerance 0 turns stripe's own (one-way, wall-clock) check off: the window was checked above
            stripe.WebhookSignature.verify_header(payload.decode("utf-8", "replace"), signature, secret, 0)
        except stripe.SignatureVerificationError:
            raise InvalidInput("the Stripe signature is invalid") from None
        try:
            raw = json.loads(payload)
        except ValueError:
            raise InvalidInput("the event is not valid JSON") from None
        if not isinstance(raw, dict):
            raise InvalidInput("the event must be a JSON object")
        return raw

    def _checkout_plan(self, session: CheckoutSession) -> str:
        if session.email is None:
            raise InvalidInput("the checkout session has no customer e-mail (customer_details.email)")
        plan = session.metadata.get("plan")
        if plan is None or not self._is_plan(plan):
            raise InvalidInput(f"the checkout session's metadata.plan must be one of {', '.join(self.plans.names())}")
        return plan

    def _checkout_completed(self, session: CheckoutSession, plan: str) -> str:
        address = session.email
        assert address is not None  # checked by _checkout_plan
        owned = guarded(lambda: self.store.get_account_by_customer(session.customer))
        if owned is not None:
            if (owned.plan, owned.status) != (plan, "active"):
                self._update(replace(owned, plan=plan, status="active"))
            if self.delivery.finish(owned.account_id):
                return "key delivered"
            self.mailer.send(
                to=owned.email,
                subject="Your subscription is active",
                text=f"Your subscription is active on the {plan} plan. Your existing API key keeps working.\n",
            )
            return "account updated"
        account = self._new_account(address, plan, session.customer)
        self.delivery.finish(account.account_id)
        return "key issued"

    def _new_account(self, address: str, plan: str, customer: str) -> Account:
        """A new account of `customer` whose key is stored with its pending delivery."""

        def issue(shared: bool) -> Account:
            account, _ = issue_key(
                self.store,
                email=address,
                plan=plan,
                customer_id=customer,
                plans=self.plans,
                deliver=True,
                shared_email=shared,
            )
            return account

        shared = bool(guarded(lambda: self.store.get_accounts_by_email(address)))
        try:
            return guarded(lambda: issue(shared))
        except AccountExists:
            if shared:
                raise
            return guarded(lambda: issue(True))  # the address was taken meanwhile by another customer's account

    def _is_plan(self, name: str) -> bool:
        try:
            guarded(lambda: self.plans.get(name))
        except UnknownPlan:
            return False
        return True

    def _update(self, account: Account) -> None:
        """Store the changed account, and tell this process's meter (other processes learn it from the
        item on the key's next admission, or within the meter's short memory of refusals)."""
        guarded(lambda: change_account(self.store, account, plans=self.plans))
        if self.on_account_change is not None:
            self.on_account_change(account.account_id)

    def _subscription_changed(self, subscription: Subscription, *, deleted: bool) -> str:
        account = guarded(lambda: self.store.get_account_by_customer(subscription.customer))
        if account is None:
            return "unknown customer"
        status = "canceled" if deleted else subscription.status
        plan = next((name for name in subscription.plan_names if self._is_plan(name)), account.plan)
        self._update(replace(account, status=status, plan=plan))
        return f"status {status}"


def _signed_at(signature: str) -> int:
    """The `t=` timestamp of a Stripe-Signature header value.

    :raises InvalidInput: there is none, or it is not a whole number of seconds.
    """
    for part in signature.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t":
            if value.isascii() and value.isdigit() and len(value) <= 12:
                return int(value)
            break
    raise InvalidInput("the Stripe-Signature header has no timestamp (t=)")
