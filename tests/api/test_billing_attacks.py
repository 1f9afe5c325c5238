"""Stripe webhooks tried as an attacker would, through the composed local API (the billing stand-in's path:
events signed with the local endpoint secret, verified by the real `stripe` package), over the moto server."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fileapi.metering.keys import hash_key
from fileapi.services import get_stores
from fileapi.settings import get_settings
from fileapi.storage.table import DynamoTable
from tests.api.test_billing_api import deliver, mails_to
from tests.helpers import auth
from tests.stripe_events import checkout_completed, subscription_event

KEY = re.compile(r"sk_live_[0-9A-Za-z]{49}")


def fresh_address(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}@example.com"


def fresh_customer() -> str:
    return f"cus_{uuid.uuid4().hex[:14]}"


def keys_mailed_to(address: str) -> list[str]:
    return [match.group(0) for mail in mails_to(address) for match in KEY.finditer(mail)]


def table_items(table: DynamoTable) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    start: dict[str, Any] | None = None
    while True:
        request: dict[str, Any] = {"TableName": table.table_name, "ConsistentRead": True}
        if start:
            request["ExclusiveStartKey"] = start
        page = table.client.scan(**request)
        items.extend(dict(item) for item in page.get("Items", []))
        start = page.get("LastEvaluatedKey")
        if not start:
            return sorted(items, key=lambda item: (item["pk"]["S"], item["sk"]["S"]))


@contextmanager
def outbox_unwritable() -> Iterator[None]:
    """The outbox path is a plain file meanwhile, so the outbox mailer fails (as a full disk or SES would)."""
    outbox = get_settings().outbox_dir
    aside = outbox.with_name(outbox.name + "-aside")
    outbox.rename(aside)
    outbox.write_bytes(b"")
    try:
        yield
    finally:
        outbox.unlink()
        aside.rename(outbox)


def test_another_customers_checkout_with_a_victims_address_takes_nothing_over(api: TestClient) -> None:
    victim, victim_customer, attacker_customer = fresh_address("victim"), fresh_customer(), fresh_customer()
    assert deliver(api, checkout_completed(victim, plan="pro", customer=victim_customer)).status_code == 200
    (victim_key,) = keys_mailed_to(victim)
    # the attacker pays with their own customer and types the victim's address
    assert deliver(api, checkout_completed(victim, plan="starter", customer=attacker_customer)).status_code == 200
    accounts = get_stores().accounts
    account = accounts.get_account_by_key(hash_key(victim_key))
    assert account is not None
    assert (account.plan, account.status, account.customer_id) == ("pro", "active", victim_customer)
    # the attacker's account is separate, and its key went to the address, not to the attacker
    second = accounts.get_account_by_customer(attacker_customer)
    assert second is not None and second.account_id != account.account_id
    assert [key for key in keys_mailed_to(victim) if key != victim_key] != []
    # the attacker's cancellation cancels only the attacker's account
    deliver(api, subscription_event(attacker_customer, status="canceled", deleted=True))
    usage = api.get("/v1/usage", headers=auth(victim_key))
    assert (usage.status_code, usage.json()["plan"], usage.json()["status"]) == (200, "pro", "active")
    canceled = accounts.get_account_by_customer(attacker_customer)
    assert canceled is not None and canceled.status == "canceled"


def test_a_subscription_event_of_an_unknown_customer_changes_nothing(api: TestClient, table: DynamoTable) -> None:
    event = subscription_event(fresh_customer(), status="canceled", deleted=True)
    before = table_items(table)
    assert deliver(api, event).status_code == 200
    (claim,) = [item for item in table_items(table) if item not in before]
    assert claim["pk"]["S"] == f"EVENT#{event['id']}"  # the event's claim is all that was written


def test_a_welcome_mail_that_failed_is_sent_on_redelivery(api: TestClient) -> None:
    buyer, customer = fresh_address("retry"), fresh_customer()
    event = checkout_completed(buyer, plan="growth", customer=customer)
    with outbox_unwritable():
        failed = deliver(api, event)
    assert (failed.status_code, failed.json()["error"]) == (503, "service_unavailable")
    assert mails_to(buyer) == []
    pending = get_stores().accounts.list_pending_deliveries()
    assert [(d.email, d.plan, d.attempts) for d in pending if d.email == buyer] == [(buyer, "growth", 1)]
    # Stripe delivers the same event again
    assert deliver(api, event).status_code == 200
    (key,) = keys_mailed_to(buyer)
    usage = api.get("/v1/usage", headers=auth(key)).json()
    assert (usage["plan"], usage["status"]) == ("growth", "active")
    assert [d for d in get_stores().accounts.list_pending_deliveries() if d.email == buyer] == []
    # a further redelivery is a duplicate, and a later checkout of the same customer keeps the key
    assert deliver(api, event).status_code == 200
    deliver(api, checkout_completed(buyer, plan="scale", customer=customer))
    assert keys_mailed_to(buyer) == [key]


@pytest.mark.parametrize("offset_seconds", [-3600, -301, 301, 3600])
def test_signatures_dated_over_5_minutes_away_are_refused(
    api: TestClient, table: DynamoTable, offset_seconds: int
) -> None:
    buyer = fresh_address("clock")
    before = table_items(table)
    response = deliver(api, checkout_completed(buyer), at=int(time.time()) + offset_seconds)
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert "5 minutes" in response.json()["message"]
    assert table_items(table) == before
    assert mails_to(buyer) == []


@pytest.mark.parametrize("offset_seconds", [-240, 240])
def test_signatures_within_5_minutes_are_accepted(api: TestClient, offset_seconds: int) -> None:
    buyer = fresh_address("near")
    assert deliver(api, checkout_completed(buyer), at=int(time.time()) + offset_seconds).status_code == 200
    assert len(keys_mailed_to(buyer)) == 1


def _checkout(**changes: Any) -> dict[str, Any]:
    event = checkout_completed("shape@example.com", plan="pro", customer="cus_shape0001")
    event["data"]["object"].update(changes)
    return event


def _without(event: dict[str, Any], *path: str) -> dict[str, Any]:
    node = event
    for name in path[:-1]:
        node = node[name]
    del node[path[-1]]
    return event


MALFORMED: dict[str, Any] = {
    "not an object": [1, 2, 3],
    "no id": _without(checkout_completed("a@example.com"), "id"),
    "id not a string": {**checkout_completed("a@example.com"), "id": 5},
    "no type": _without(checkout_completed("a@example.com"), "type"),
    "no data": _without(checkout_completed("a@example.com"), "data"),
    "data not an object": {**checkout_completed("a@example.com"), "data": "x"},
    "no data.object": {**checkout_completed("a@example.com"), "data": {}},
    "data.object a list": {**checkout_completed("a@example.com"), "data": {"object": []}},
    "no customer": _checkout(customer=None),
    "customer an object": _checkout(customer={"id": "cus_1"}),
    "customer not a customer id": _checkout(customer="acct_123"),
    "customer_details a string": _checkout(customer_details="x"),
    "e-mail with CRLF": _checkout(customer_details={"email": "shape@example.com\r\nBcc: all@example.com"}),
    "e-mail not an address": _checkout(customer_details={"email": "not an address"}),
    "e-mail a number": _checkout(customer_details={"email": 5}),
    "no e-mail at all": _checkout(customer_details={}),
    "metadata a list": _checkout(metadata=["plan"]),
    "plan a number": _checkout(metadata={"plan": 5}),
    "no plan": _checkout(metadata={}),
    "unknown plan": _checkout(metadata={"plan": "platinum"}),
    "subscription without customer": _without(
        subscription_event("cus_x", status="active"), "data", "object", "customer"
    ),
    "subscription status unknown": subscription_event("cus_shape0001", status="weird"),
    "subscription status a number": subscription_event("cus_shape0001", status=5),  # type: ignore[arg-type]
    "subscription items a string": {
        **subscription_event("cus_shape0001", status="active"),
        "data": {"object": {"customer": "cus_shape0001", "status": "active", "items": "x"}},
    },
    "subscription price a list": {
        **subscription_event("cus_shape0001", status="active"),
        "data": {"object": {"customer": "cus_shape0001", "status": "active", "items": {"data": [{"price": []}]}}},
    },
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_malformed_events_are_400_and_write_nothing(api: TestClient, table: DynamoTable, shape: str) -> None:
    before = table_items(table)
    response = deliver(api, MALFORMED[shape])
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")
    assert table_items(table) == before
    assert mails_to("shape@example.com") == []
