"""Stripe events as Stripe sends them, for the local billing stand-in and the tests: the payload shapes the
webhook reads, and Stripe's signature (HMAC-SHA256 over "timestamp.body" with the endpoint secret)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any


def sign(event: dict[str, Any], *, secret: str, at: int | None = None) -> tuple[bytes, str]:
    """The body of `event` and its Stripe-Signature header value (`t=<unix time>,v1=<hex HMAC>`)."""
    body = json.dumps(event).encode()
    timestamp = int(time.time()) if at is None else at
    signature = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return body, f"t={timestamp},v1={signature}"


def checkout_completed(email: str, plan: str = "pro", customer: str | None = None) -> dict[str, Any]:
    """A `checkout.session.completed` event: a customer paid for `plan` (the session's metadata.plan)."""
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": "checkout.session.completed",
        "data": {
            "object": {
                "id": f"cs_{uuid.uuid4().hex}",
                "object": "checkout.session",
                "customer": customer or f"cus_{uuid.uuid4().hex[:14]}",
                "customer_details": {"email": email},
                "metadata": {"plan": plan},
            }
        },
    }


def subscription_event(
    customer: str,
    *,
    status: str,
    deleted: bool = False,
    lookup_key: str | None = None,
    plan: str | None = None,
) -> dict[str, Any]:
    """A `customer.subscription.updated` (or `.deleted`) event for the customer's subscription: its status, and
    its plan as the subscription's metadata.plan or its first price's lookup_key."""
    items = {"data": [{"price": {"lookup_key": lookup_key}}]} if lookup_key else {"data": []}
    subscription: dict[str, Any] = {
        "id": "sub_1",
        "object": "subscription",
        "customer": customer,
        "status": status,
        "items": items,
    }
    if plan is not None:
        subscription["metadata"] = {"plan": plan}
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": "customer.subscription.deleted" if deleted else "customer.subscription.updated",
        "data": {"object": subscription},
    }
