"""BillingEvents function: POST /webhooks/stripe (Stripe signs it; no API key, not metered)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from fileapi.models.billing import WebhookAck
from fileapi.services import get_billing_events
from fileapi.telemetry import logger
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.routes import Routes, answers_json, json_response

router = APIRouter(tags=["Billing"])
billing = Routes(router, statuses=(400, 500, 503))


@billing.post(
    "/webhooks/stripe",
    "Stripe webhook",
    answers_json(WebhookAck, "Acknowledged", metered=False),
    openapi_extra={"x-internal": True},
)
async def stripe_webhook(request: Request) -> Response:
    """Stripe's event deliveries, verified with the endpoint's signing secret. checkout.session.completed issues a
    key (plan from the session's metadata.plan) and e-mails it; customer.subscription.updated/deleted set the
    account's status and plan; each event id is processed once; other events are acknowledged. Called by Stripe,
    not by clients: marked x-internal, so the SDKs and the MCP server leave it out."""
    payload = await request.body()
    outcome = await run_in_threadpool(get_billing_events().handle, payload, request.headers.get("stripe-signature"))
    logger.info("billing event", extra={"outcome": outcome})
    return json_response(WebhookAck(received=True))


app = create_app(router, title="BillingEvents")
handler = lambda_handler(app)
