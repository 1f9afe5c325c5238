"""Stripe webhook events: key issuance after checkout and subscription status changes.

- The Stripe-Signature header is verified with the endpoint secret by the `stripe` package
  (HMAC-SHA256 over timestamp and body, 5 minutes of tolerance); a bad or stale one is 400.
- Each event id is processed once: it is claimed with a conditional write first, so replays and
  concurrent deliveries do nothing (and issue no second key); a failed processing releases it so
  Stripe's retry runs it.
- checkout.session.completed: the plan is the Checkout Session's `metadata.plan` (starter, pro,
  growth, scale or business; set it when creating the session). A new e-mail address gets an
  account on that plan and a key, e-mailed to the billing contact; an existing account is moved
  to the plan and made active, and keeps its key.
- customer.subscription.updated / customer.subscription.deleted: the account of the customer gets
  the subscription's status (deleted: canceled) and plan (the subscription's `metadata.plan`, else
  the first item's price `lookup_key`, when it names a plan). Anything but active or trialing
  makes the key answer 403 subscription_inactive.
- Other event types are acknowledged and ignored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from fileapi.account.mailer import Mailer
from fileapi.errors import InvalidInput, ServiceUnavailable
from fileapi.metering.accounts import Account
from fileapi.metering.admin import change_account, create_key
from fileapi.metering.meter import guarded
from fileapi.metering.plans import PlanCatalog, UnknownPlan
from fileapi.metering.store import AccountStore

EVENT_RETENTION_SECONDS = 30 * 86_400


class BillingEvents:
    """Handles verified Stripe events.

    :param webhook_secret: the endpoint's signing secret (whsec_...); a callable so that it can be
        fetched lazily (SSM) and None when billing is not configured.
    """

    def __init__(
        self,
        store: AccountStore,
        mailer: Mailer,
        webhook_secret: Callable[[], str | None],
        *,
        clock: Callable[[], float] = time.time,
        on_account_change: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.mailer = mailer
        self.webhook_secret = webhook_secret
        self.clock = clock
        self.on_account_change = on_account_change
        self.plans = PlanCatalog(store)

    def handle(self, payload: bytes, signature: str | None) -> str:
        """Verify and process one delivery; returns what was done (for the log, never content)."""
        event = self._verify(payload, signature)
        event_id = str(event["id"])
        if not guarded(
            lambda: self.store.claim_event(event_id, expires_at=int(self.clock()) + EVENT_RETENTION_SECONDS)
        ):
            return "duplicate"
        try:
            return self._dispatch(str(event["type"]), event["data"]["object"])
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
        try:
            return stripe.Webhook.construct_event(payload, signature, secret).to_dict()
        except stripe.SignatureVerificationError:
            raise InvalidInput("the Stripe signature is invalid or too old") from None
        except ValueError:
            raise InvalidInput("the event is not valid JSON") from None

    def _dispatch(self, kind: str, subject: Any) -> str:
        if kind == "checkout.session.completed":
            return self._checkout_completed(subject)
        if kind in ("customer.subscription.updated", "customer.subscription.deleted"):
            return self._subscription_changed(subject, deleted=kind.endswith("deleted"))
        return "ignored"

    def _checkout_completed(self, session: Any) -> str:
        details = session.get("customer_details") or {}
        address = (details.get("email") or session.get("customer_email") or "").strip().lower()
        plan = (session.get("metadata") or {}).get("plan")
        customer = session.get("customer")
        if not address:
            raise InvalidInput("the checkout session has no customer e-mail")
        if not isinstance(plan, str) or not self._is_plan(plan):
            raise InvalidInput(f"the checkout session's metadata.plan must be one of {', '.join(self.plans.names())}")
        existing = guarded(lambda: self.store.get_account_by_email(address))
        if existing is not None:
            updated = replace(existing, plan=plan, status="active", customer_id=customer or existing.customer_id)
            self._update(updated)
            self.mailer.send(
                to=address,
                subject="Your subscription is active",
                text=f"Your subscription is active on the {plan} plan. Your existing API key keeps working.\n",
            )
            return "account updated"
        key = guarded(lambda: create_key(self.store, email=address, plan=plan, customer_id=customer, plans=self.plans))
        self.mailer.send(
            to=address,
            subject="Your API key",
            text=f"Welcome! Your subscription is active on the {plan} plan.\n\nYour API key: {key}\n\n"
            "Keep it secret: send it as 'Authorization: Bearer <key>'.\n",
        )
        return "key issued"

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

    def _subscription_changed(self, subscription: Any, *, deleted: bool) -> str:
        customer = subscription.get("customer")
        account = guarded(lambda: self.store.get_account_by_customer(str(customer))) if customer else None
        if account is None:
            return "unknown customer"
        status = "canceled" if deleted else str(subscription.get("status") or account.status)
        plan = (subscription.get("metadata") or {}).get("plan")
        if not isinstance(plan, str) or not self._is_plan(plan):
            items = ((subscription.get("items") or {}).get("data")) or []
            lookup = ((items[0].get("price") or {}).get("lookup_key")) if items else None
            plan = lookup if isinstance(lookup, str) and self._is_plan(lookup) else account.plan
        self._update(replace(account, status=status, plan=plan))
        return f"status {status}"
