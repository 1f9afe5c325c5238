"""Stripe events signed the way Stripe signs them (HMAC-SHA256 over "timestamp.body")."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any

SECRET = "whsec_test_secret_for_the_suite"


def signed(event: dict[str, Any], *, secret: str = SECRET, at: int | None = None) -> tuple[bytes, str]:
    body = json.dumps(event).encode()
    timestamp = int(time.time()) if at is None else at
    signature = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return body, f"t={timestamp},v1={signature}"


def checkout_completed(email: str, plan: str = "pro", customer: str | None = None) -> dict[str, Any]:
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
    customer: str, *, status: str, deleted: bool = False, lookup_key: str | None = None
) -> dict[str, Any]:
    items = {"data": [{"price": {"lookup_key": lookup_key}}]} if lookup_key else {"data": []}
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": "customer.subscription.deleted" if deleted else "customer.subscription.updated",
        "data": {
            "object": {"id": "sub_1", "object": "subscription", "customer": customer, "status": status, "items": items}
        },
    }
