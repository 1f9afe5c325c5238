"""Account function: self-service endpoints (usage, key rotation and recovery); never counted against the quota."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from fileapi.account.keys import RECOVERY_MESSAGE
from fileapi.metering.meter import Admission
from fileapi.models.account import (
    RECOVERED,
    ROTATED,
    ConfirmRequest,
    KeysRecoverConfirmResult,
    KeysRecoverResult,
    KeysRotateResult,
    RecoverRequest,
    UsageResult,
)
from fileapi.services import get_billing_portal, get_key_service, get_meter
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.metering import SelfServiceRoute, self_service
from fileapi.web.routes import Routes, answers_bytes, answers_redirect, json_response

router = APIRouter(tags=["Account"])
public = APIRouter(tags=["Account"])
SELF_SERVICE_STATUSES = (400, 401, 403, 429, 500, 503)
accounts = Routes(router, statuses=SELF_SERVICE_STATUSES, served_by=SelfServiceRoute)
recovery = Routes(public, statuses=(400, 429, 500, 503), metered=False)
# Recovery answers are padded to this many seconds, so that an existing account (an e-mail is sent)
# and an unknown address take the same time.
RECOVER_MIN_SECONDS = 0.6
SVG = "image/svg+xml"
# The chart is an image of one account's usage: never stored by a shared cache, and never a document that runs
# anything, even when opened on its own.
CHART_HEADERS = {"Cache-Control": "private, no-store", "Content-Security-Policy": "default-src 'none'"}


def _secret(response: Response) -> Response:
    """An answer that carries a new API key: never kept, by a cache or for an Idempotency-Key's repeat."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _source(request: Request) -> str:
    context = request.scope.get("aws.event", {}).get("requestContext", {})
    return str(context.get("http", {}).get("sourceIp") or (request.client.host if request.client else "unknown"))


@accounts.get("/v1/usage", "Usage of the key's account this month", UsageResult, statuses=(401, 403, 429, 500, 503))
async def usage(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """Plan, monthly quota, requests counted this UTC month and when the count resets. Not counted."""
    return json_response(UsageResult.model_validate(get_meter().usage(admission)))


@accounts.get(
    "/v1/usage/chart",
    "This month's usage as a chart",
    answers_bytes((SVG,), "An SVG image of the month's requests against the quota"),
    statuses=(401, 403, 429, 500, 503),
)
async def usage_chart(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """An SVG image of this UTC month, drawn on the server: requests per day as bars, their running total as a line
    against the monthly quota, the days along the bottom; its title and description say the figures in words. The
    same figures as GET /v1/usage. Not counted."""
    from fileapi.account.usage_chart import usage_chart_svg

    return Response(usage_chart_svg(get_meter().usage(admission)), media_type=SVG, headers=CHART_HEADERS)


@accounts.post("/v1/keys/rotate", "Rotate the API key", KeysRotateResult)
async def rotate(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """Issues a new key and invalidates the one used for this request at once (this request itself succeeds).
    Usage and limits carry over; the new key is also e-mailed to the account address. Not counted. Response:
    {message, api_key}."""
    key = await run_in_threadpool(get_key_service().rotate_account, admission.account_id, admission.key_hash)
    return _secret(json_response(KeysRotateResult(message=ROTATED, api_key=key)))


@accounts.get(
    "/v1/billing/portal",
    "Open the billing portal",
    answers_redirect("Redirect to the portal", statuses=SELF_SERVICE_STATUSES),
)
async def billing_portal(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    """303 redirect to a one-time session of the payment provider's customer portal (Stripe), where plan, payment
    method, invoices and cancellation are managed; it returns to the configured return URL. Run locally (`make
    run`, no Stripe key configured) a billing stand-in answers instead: the redirect goes to a local portal page
    showing plan and usage that can change the plan. Deployed without billing configured the answer is 503
    service_unavailable saying so; a key whose account was not created by a checkout is 400. Not counted."""
    account = await run_in_threadpool(get_key_service().account, admission.account_id)
    url = await run_in_threadpool(get_billing_portal().session_url, account)
    return RedirectResponse(url, status_code=303)


@recovery.post("/v1/keys/recover", "Start key recovery", KeysRecoverResult)
async def recover(payload: RecoverRequest, request: Request) -> Response:
    """JSON {email}. For each account with this address an 8-digit code valid for 10 minutes is e-mailed; codes
    sent earlier stay valid. The answer is the same, in content and in time, whether or not an account exists.
    Limited per address from one source, per source and over all sources (429 rate_limited with Retry-After), so
    requests from elsewhere never use up the owner's allowance. A malformed address is 400. No key needed."""
    started = time.monotonic()
    try:
        await run_in_threadpool(get_key_service().start_recovery, payload.email, source=_source(request))
    finally:
        await asyncio.sleep(max(0.0, RECOVER_MIN_SECONDS - (time.monotonic() - started)))
    return json_response(KeysRecoverResult(message=RECOVERY_MESSAGE))


@recovery.post("/v1/keys/recover/confirm", "Finish key recovery", KeysRecoverConfirmResult)
async def confirm(payload: ConfirmRequest, request: Request) -> Response:
    """JSON {email, code}. A valid, unexpired, unused code returns {message, api_key}: a new key (also e-mailed)
    for the account the code was sent for; the old key stops working at once. A code that is not 8 ASCII digits,
    or that is wrong, expired or already used, is 400 invalid_input. Tries are limited per address from one
    source, per source and over all sources (429), so guesses from elsewhere never burn the owner's code. No key
    needed."""
    source = _source(request)
    key = await run_in_threadpool(get_key_service().confirm_recovery, payload.email, payload.code, source=source)
    return _secret(json_response(KeysRecoverConfirmResult(message=RECOVERED, api_key=key)))


app = create_app(router, public, title="Account")
handler = lambda_handler(app)
