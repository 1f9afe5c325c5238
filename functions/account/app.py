"""Account function: self-service endpoints (/v1/usage); never counted against the quota."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response

from fileapi.metering.meter import Admission
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.docs import error_responses, success_response
from fileapi.web.metering import MeteredRoute, self_service
from fileapi.web.services import get_meter

router = APIRouter(route_class=MeteredRoute, tags=["Account"])

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
    report = await run_in_threadpool(get_meter().usage, admission.account)
    return JSONResponse(asdict(report))


app = create_app(router, title="Account")
handler = lambda_handler(app)
