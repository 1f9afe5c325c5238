"""GET /v1/billing/portal through the `stripe` package against a local stand-in for Stripe's API."""

from __future__ import annotations

import json
import threading
import urllib.parse
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from fastapi.testclient import TestClient

import fileapi.services as services
from fileapi.account.portal import BillingPortal
from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from tests.helpers import auth, without_stripe_params

# The layer ships stripe without stripe.params (layers/Makefile): these run without it too.
pytestmark = pytest.mark.usefixtures(without_stripe_params.__name__)

PORTAL_URL = "https://billing.example.test/p/session_123"


class StripeStandIn(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, list[str]]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        StripeStandIn.received.append({"path": [self.path], "auth": [self.headers.get("Authorization", "")], **form})
        body = json.dumps({"id": "bps_123", "object": "billing_portal.session", "url": PORTAL_URL}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture()
def stripe_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StripeStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StripeStandIn.received.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture()
def portal(stripe_api: str, monkeypatch: pytest.MonkeyPatch) -> BillingPortal:
    configured = BillingPortal(lambda: "sk_test_standin", return_url="https://example.com/back", api_base=stripe_api)
    monkeypatch.setattr(services, "_portal", configured)
    return configured


def test_portal_redirects_to_a_session_for_the_accounts_customer(
    api: TestClient, store: AccountStore, portal: BillingPortal
) -> None:
    customer = f"cus_{uuid.uuid4().hex[:12]}"
    key = create_key(store, email=f"{uuid.uuid4().hex}@example.com", plan="pro", customer_id=customer)
    response = api.get("/v1/billing/portal", headers=auth(key), follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, PORTAL_URL)
    (request,) = StripeStandIn.received
    assert request["path"] == ["/v1/billing_portal/sessions"]
    assert request["customer"] == [customer] and request["return_url"] == ["https://example.com/back"]
    assert request["auth"] == ["Bearer sk_test_standin"]


def test_portal_for_an_account_without_customer_is_400(api: TestClient, key: str, portal: BillingPortal) -> None:
    response = api.get("/v1/billing/portal", headers=auth(key), follow_redirects=False)
    assert (response.status_code, response.json()["error"]) == (400, "invalid_input")


def test_portal_without_billing_configured_says_so(api: TestClient, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "_portal", BillingPortal(lambda: None, return_url="https://example.com"))
    response = api.get("/v1/billing/portal", headers=auth(key), follow_redirects=False)
    assert response.status_code == 503
    assert response.json() == {
        "error": "service_unavailable",
        "message": "billing is not configured: no Stripe secret key is set",
        "docs_url": "/docs/errors#service_unavailable",
    }
