"""Account function: self-service endpoints (usage, key rotation and recovery); never counted against the quota."""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, RedirectResponse, Response

from fileapi.account.keys import RECOVERY_MESSAGE
from fileapi.metering.meter import Admission
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import error_responses, object_schema, success_response
from fileapi.web.metering import MeteredRoute, self_service
from fileapi.web.services import get_billing_portal, get_key_service, get_meter

router = APIRouter(route_class=MeteredRoute, tags=["Account"])
public = APIRouter(tags=["Account"])
# Recovery answers are padded to this many seconds, so that an existing account (an e-mail is sent)
# and an unknown address take the same time.
RECOVER_MIN_SECONDS = 0.6
KEY_RESPONSE = {
    "type": "object",
    "required": ["message", "api_key"],
    "properties": {"message": {"type": "string"}, "api_key": {"type": "string", "description": "sk_live_..."}},
}


ROTATED = "Your key was rotated; the previous key no longer works."
RECOVERED = "Your key was recovered; the previous key no longer works."


class RecoverRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"email": "you@example.com"}]})

    email: str = Field(max_length=254, description="The account's e-mail address.")


class ConfirmRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"email": "you@example.com", "code": "12345678"}]})

    email: str = Field(max_length=254)
    code: str = Field(max_length=32, description="The 8 digits from the e-mail.")


def _source(request: Request) -> str:
    context = request.scope.get("aws.event", {}).get("requestContext", {})
    return str(context.get("http", {}).get("sourceIp") or (request.client.host if request.client else "unknown"))


USAGE_SCHEMA = {
    "type": "object",
    "required": ["plan", "quota_monthly", "used_this_month", "remaining", "resets_at", "status"],
    "properties": {
        "plan": {"type": "string", "enum": ["starter", "pro", "growth", "scale", "business"]},
        "quota_monthly": {"type": "integer", "description": "Monthly cap in force (plan or account override)."},
        "used_this_month": {"type": "integer", "description": "Successful requests counted this UTC month."},
        "remaining": {"type": "integer", "description": "quota_monthly minus used_this_month."},
        "resets_at": {"type": "string", "format": "date-time", "description": "1st of next month, 00:00:00.000Z."},
        "status": {"type": "string", "description": "Subscription status: 'active' for a live subscription."},
    },
}


@router.get(
    "/v1/usage",
    summary="Usage of the key's account this month",
    description="Plan, monthly quota, requests counted this UTC month and when the count resets. Not counted.",
    responses={
        **success_response(
            "application/json",
            "Usage",
            schema=USAGE_SCHEMA,
            example={
                "plan": "pro",
                "quota_monthly": 10000,
                "used_this_month": 42,
                "remaining": 9958,
                "resets_at": "2026-12-01T00:00:00.000Z",
                "status": "active",
            },
        ),
        **error_responses((401, 403, 429, 500, 503)),
    },
)
async def usage(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    return JSONResponse(asdict(get_meter().usage(admission)))


@router.post(
    "/v1/keys/rotate",
    summary="Rotate the API key",
    description=(
        "Issues a new key and invalidates the one used for this request at once (this request itself succeeds). "
        "Usage and limits carry over; the new key is also e-mailed to the account address. Not counted. "
        "Response: {message, api_key}."
    ),
    responses={
        **success_response(
            "application/json",
            "New key",
            schema=KEY_RESPONSE,
            example={"message": ROTATED, "api_key": "sk_live_..."},
            metered=True,
        ),
        **error_responses((400, 401, 403, 429, 500, 503)),
    },
)
async def rotate(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    key = await run_in_threadpool(get_key_service().rotate_account, admission.account_id, admission.key_hash)
    return JSONResponse({"message": ROTATED, "api_key": key})


@router.get(
    "/v1/billing/portal",
    summary="Open the billing portal",
    description=(
        "303 redirect to a one-time session of the payment provider's customer portal (Stripe), where plan, payment "
        "method, invoices and cancellation are managed; it returns to the configured return URL. Run locally "
        "(`make run`, no Stripe key configured) a billing stand-in answers instead: the redirect goes to a local "
        "portal page showing plan and usage that can change the plan. Deployed without billing configured the "
        "answer is 503 service_unavailable saying so; a key whose account was not created by a checkout is 400. "
        "Not counted."
    ),
    response_class=RedirectResponse,
    status_code=303,
    responses={
        303: {"description": "Redirect to the portal", "headers": {"Location": {"schema": {"type": "string"}}}},
        **error_responses((400, 401, 403, 429, 500, 503)),
    },
)
async def billing_portal(admission: Annotated[Admission, Depends(self_service)]) -> Response:
    account = await run_in_threadpool(get_key_service().account, admission.account_id)
    url = await run_in_threadpool(get_billing_portal().session_url, account)
    return RedirectResponse(url, status_code=303)


@public.post(
    "/v1/keys/recover",
    summary="Start key recovery",
    description=(
        "JSON {email}. When an account has this address, an 8-digit code valid for 10 minutes is e-mailed. The "
        "answer is the same, in content and in time, whether or not an account exists. Limited per address (5 per "
        "hour) and per source address (429 rate_limited with Retry-After). A malformed address is 400. No key needed."
    ),
    responses={
        200: {
            "description": "Always the same message",
            "content": {
                "application/json": {
                    "schema": object_schema({"message": {"type": "string"}}),
                    "example": {"message": RECOVERY_MESSAGE},
                }
            },
        },
        **error_responses((400, 429, 500, 503)),
    },
)
async def recover(payload: RecoverRequest, request: Request) -> Response:
    started = time.monotonic()
    try:
        await run_in_threadpool(get_key_service().start_recovery, payload.email, source=_source(request))
    finally:
        await asyncio.sleep(max(0.0, RECOVER_MIN_SECONDS - (time.monotonic() - started)))
    return JSONResponse({"message": RECOVERY_MESSAGE})


@public.post(
    "/v1/keys/recover/confirm",
    summary="Finish key recovery",
    description=(
        "JSON {email, code}. A valid, unexpired, unused code returns {message, api_key}: a new key (also e-mailed); "
        "the old key stops working at once. A code that is not 8 digits, or that is wrong, expired (10 minutes) or "
        "already used, is 400 invalid_input; after 5 wrong tries the code is burnt. No key needed."
    ),
    responses={
        **success_response(
            "application/json",
            "New key",
            schema=KEY_RESPONSE,
            example={"message": RECOVERED, "api_key": "sk_live_..."},
            metered=False,
        ),
        **error_responses((400, 429, 500, 503)),
    },
)
async def confirm(payload: ConfirmRequest, request: Request) -> Response:
    key = await run_in_threadpool(
        get_key_service().confirm_recovery, payload.email, payload.code, source=_source(request)
    )
    return JSONResponse({"message": RECOVERED, "api_key": key})


app = create_app(router, public, title="Account")
handler = lambda_handler(app)
