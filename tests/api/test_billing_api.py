"""Stripe webhooks through the composed local API, verified by the real `stripe` package."""

from __future__ import annotations

import email
import email.policy
import re
import time
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from fileapi.settings import get_settings
from tests.helpers import auth, without_stripe_params
from tests.stripe_events import SECRET, checkout_completed, signed, subscription_event

# The layer ships stripe without stripe.params (layers/Makefile): these run without it too.
pytestmark = pytest.mark.usefixtures(without_stripe_params.__name__)


def mails_to(address: str) -> list[str]:
    found = []
    for path in get_settings().outbox_dir.glob("*.eml"):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if message["To"] == address:
            found.append(str(message.get_body().get_content()))  # type: ignore[union-attr]
    return found


def deliver(api: TestClient, event: dict[str, Any], *, secret: str = SECRET, at: int | None = None) -> Response:
    body, signature = signed(event, secret=secret, at=at)
    response: Response = api.post("/webhooks/stripe", content=body, headers={"Stripe-Signature": signature})
    return response


def test_checkout_issues_a_key_once_and_subscription_changes_apply(api: TestClient) -> None:
    address = f"buyer-{uuid.uuid4().hex[:8]}@example.com"
    customer = f"cus_{uuid.uuid4().hex[:12]}"
    event = checkout_completed(address, plan="growth", customer=customer)
    response = deliver(api, event)
    assert (response.status_code, response.json()) == (200, {"received": True})
    (mail,) = mails_to(address)
    key = re.search(r"sk_live_[0-9A-Za-z]{49}", mail).group(0)  # type: ignore[union-attr]
    usage = api.get("/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["status"]) == ("growth", "active")
    # a replayed delivery issues nothing
    assert deliver(api, event).status_code == 200
    assert len(mails_to(address)) == 1
    # subscription changes
    deliver(api, subscription_event(customer, status="past_due"))
    assert api.get("/v1/usage", headers=auth(key)).status_code == 403
    deliver(api, subscription_event(customer, status="active", lookup_key="scale"))
    assert api.get("/v1/usage", headers=auth(key)).json()["plan"] == "scale"
    deliver(api, subscription_event(customer, status="active", deleted=True))
    denied = api.get("/v1/usage", headers=auth(key))
    assert (denied.status_code, denied.json()["error"]) == (403, "subscription_inactive")


def test_checkout_of_the_same_customer_keeps_its_key(api: TestClient) -> None:
    address = f"again-{uuid.uuid4().hex[:8]}@example.com"
    customer = f"cus_{uuid.uuid4().hex[:12]}"
    deliver(api, checkout_completed(address, plan="starter", customer=customer))
    key = re.search(r"sk_live_[0-9A-Za-z]{49}", mails_to(address)[0]).group(0)  # type: ignore[union-attr]
    deliver(api, checkout_completed(address, plan="business", customer=customer))
    assert api.get("/v1/usage", headers=auth(key)).json()["plan"] == "business"
    assert sum("sk_live_" in mail for mail in mails_to(address)) == 1


def test_bad_signatures_are_400(api: TestClient) -> None:
    event = checkout_completed("x@example.com")
    wrong = deliver(api, event, secret="whsec_other")
    stale = deliver(api, event, at=int(time.time()) - 3600)
    body, _ = signed(event)
    missing = api.post("/webhooks/stripe", content=body)
    for response in (wrong, stale, missing):
        assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert mails_to("x@example.com") == []


def test_unknown_events_are_acknowledged(api: TestClient) -> None:
    event = {"id": f"evt_{uuid.uuid4().hex}", "object": "event", "type": "invoice.paid", "data": {"object": {}}}
    assert deliver(api, event).status_code == 200


def test_checkout_without_a_valid_plan_is_400(api: TestClient) -> None:
    response = deliver(api, checkout_completed("np@example.com", plan="platinum"))
    assert response.status_code == 400
    assert "metadata.plan" in response.json()["message"]
