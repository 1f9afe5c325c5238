"""Metering in the web layer: the admission dependencies and the route class that counts successes.

Conversion routes use `metered` (counted against the quota); self-service routes use
`self_service` (authenticated and rate-limited, never counted). Both run before the
request's own parameters are validated, so refusals come in the contract's order:
401, 403, 429 rate_limited, 429 quota_exceeded, then 400s.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Security
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from fileapi.metering.keys import KEY_PREFIX, key_prefix
from fileapi.metering.meter import Admission
from fileapi.settings import get_settings
from fileapi.web.deadline import with_deadline
from fileapi.web.limits import check_response_size
from fileapi.web.services import get_meter

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="API key as a bearer token: `Authorization: Bearer sk_live_...`",
)

POLICY_NAME = "default"


def _admit(request: Request, *, counted: bool) -> Admission:
    meter = get_meter()
    authorization = request.headers.get("authorization")
    presented = (authorization or "").partition(" ")[2].strip()
    if presented.startswith(KEY_PREFIX):  # anything else may be some other secret: never logged
        request.state.key_prefix = key_prefix(presented)
    account = meter.authenticate(authorization)
    admission = meter.admit(account, counted=counted)
    request.state.admission = admission
    return admission


def metered(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of conversion endpoints: authenticate, take a rate token, check the quota."""
    return _admit(request, counted=True)


def self_service(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of self-service endpoints: authenticate and take a rate token; never counted."""
    return _admit(request, counted=False)


def metering_headers(admission: Admission, quota_remaining: int) -> dict[str, str]:
    """X-Quota-Remaining, RateLimit-Limit/-Remaining and the IETF draft RateLimit-Policy/RateLimit.

    RateLimit-Limit is the bucket's capacity (the plan's burst, in requests); RateLimit-Remaining
    is how many requests may be sent at once now; the bucket refills at the plan's sustained rate.
    """
    bucket = admission.bucket
    return {
        "X-Quota-Remaining": str(quota_remaining),
        "RateLimit-Limit": str(admission.limits.burst),
        "RateLimit-Remaining": str(admission.rate_remaining),
        "RateLimit-Policy": f'"{POLICY_NAME}";q={admission.limits.burst};w={bucket.window_seconds}',
        "RateLimit": f'"{POLICY_NAME}";r={admission.rate_remaining};t={admission.rate_reset_seconds}',
    }


class MeteredRoute(APIRoute):
    """A route whose synchronous endpoint runs within the conversion deadline (web.deadline), and
    whose successful responses are size-checked, counted (when admitted as counted)
    and given the metering headers. A failed count (quota used up by concurrent requests)
    turns the response into 429 quota_exceeded and the work is thrown away."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, with_deadline(endpoint), **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def metered_handler(request: Request) -> Response:
            response = await handler(request)
            admission: Admission | None = getattr(request.state, "admission", None)
            if admission is None or response.status_code >= 400:
                return response
            check_response_size(response, max_response_bytes=get_settings().max_response_bytes)
            meter = get_meter()
            if admission.counted:
                request_id = request.scope.get("state", {}).get("request_id") or uuid.uuid4().hex
                remaining = await run_in_threadpool(meter.commit, admission, request_id)
            else:
                remaining = await run_in_threadpool(meter.quota_remaining, admission)
            response.headers.update(metering_headers(admission, remaining))
            return response

        return metered_handler
