"""Metering in the web layer: the admission dependencies and the route class that settles each answer.

Conversion routes use `metered` (a unit of the month's quota is reserved at admission); self-service
routes use `self_service` (authenticated and rate-limited, never counted). Both run before the
request's own parameters are validated, so refusals come in the contract's order: 401, 403,
429 rate_limited, 429 quota_exceeded, then 400s. `MeteredRoute` then settles the answer in one
place: a success keeps its unit; a failure of any kind (validation, conversion, deadline, a response
too large) gives it back; every admitted answer carries the metering headers.

A conversion's admission (the store's write) runs in the conversion's own worker thread, just before it
(one thread hop per request, not two): `metered` only marks the request, and the route admits it first
in the thread (`with_deadline(before=...)`), or on the event loop's thread pool before an asynchronous
endpoint, or — when the request fails before its endpoint runs (validation, the body) — before
answering, so that a refusal of the key still comes first and an admitted failure is given back.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any

from fastapi import Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import request_response

import fileapi.web.fastapi_compat  # noqa: F401 - before any route is declared: no pydantic.v1 import
from fileapi.errors import ApiError
from fileapi.metering.keys import KEY_PREFIX, key_prefix
from fileapi.metering.meter import Admission
from fileapi.settings import get_settings
from fileapi.web.binding import bound_handler, plan_of
from fileapi.web.deadline import with_deadline
from fileapi.web.errors import http_error, validation_error
from fileapi.web.limits import check_response_size
from fileapi.web.services import get_meter

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="API key as a bearer token: `Authorization: Bearer sk_live_...`",
)


def _admit(request: Request, *, counted: bool) -> Admission:
    authorization = request.headers.get("authorization")
    presented = (authorization or "").partition(" ")[2].strip()
    if presented.startswith(KEY_PREFIX):  # anything else may be some other secret: never logged
        request.state.key_prefix = key_prefix(presented)
    request_id = str(request.scope.get("state", {}).get("request_id") or "")
    admission = get_meter().admit(authorization, counted=counted, request_id=request_id)
    request.state.admission = admission
    return admission


async def metered(request: Request, _: Any = Security(bearer_scheme)) -> None:
    """Dependency of conversion endpoints: authenticate, take a rate token, reserve a unit of the quota — in
    the conversion's worker thread, just before it (see the module's docstring): here the request is marked.
    (MeteredRoute's binding plan does the same without FastAPI's dependency solving: web.binding.)"""
    _mark_pending(request)


def _mark_pending(request: Request) -> None:
    request.state.admission_pending = True


# The request a MeteredRoute is answering (read in the worker thread, which runs in a copy of this context).
_answering: ContextVar[Request | None] = ContextVar("metered_request", default=None)


def admit_pending() -> None:
    """Admit the request being answered if `metered` marked it and it is not admitted yet (blocking: the
    store's write). The mark is taken first, so a request is admitted once.

    :raises ApiError: the admission's refusal (401, 403, 429, 503).
    """
    request = _answering.get()
    if request is None or not getattr(request.state, "admission_pending", False):
        return
    request.state.admission_pending = False
    _admit(request, counted=True)


def _pending(request: Request) -> bool:
    return bool(getattr(request.state, "admission_pending", False))


def _admitted_first(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """The endpoint, with the pending admission before it: in its worker thread (synchronous endpoints, under
    the deadline), or in the thread pool before an asynchronous one."""
    if not inspect.iscoroutinefunction(endpoint):
        return with_deadline(endpoint, before=admit_pending)

    @functools.wraps(endpoint)
    async def admitted(*args: Any, **kwargs: Any) -> Any:
        request = _answering.get()
        if request is not None and _pending(request):
            await run_in_threadpool(admit_pending)
        return await endpoint(*args, **kwargs)

    return admitted


def self_service(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of self-service endpoints: authenticate and take a rate token; never counted."""
    return _admit(request, counted=False)


class MeteredRoute(APIRoute):
    """A route whose synchronous endpoint runs within the conversion deadline (web.deadline), and whose
    admitted answers are settled here: successes are size-checked and keep their unit, failures give
    it back, and both carry X-Quota-Remaining and the RateLimit-* headers."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, _admitted_first(endpoint), **kwargs)
        if plan_of(self, {metered: _mark_pending}) is not None:
            # A bound route opens no dependency exit stacks: Starlette's request wrapper, not FastAPI's.
            self.app = request_response(self.get_route_handler())

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        plan = plan_of(self, {metered: _mark_pending})
        handler = bound_handler(plan) if plan is not None else super().get_route_handler()

        async def metered_handler(request: Request) -> Response:
            answering = _answering.set(request)
            try:
                return await settled(request)
            finally:
                _answering.reset(answering)

        async def settled(request: Request) -> Response:
            try:
                response = await handler(request)
                if _pending(request):  # answered without running the endpoint: admitted all the same
                    await run_in_threadpool(admit_pending)
                admission: Admission | None = getattr(request.state, "admission", None)
                if admission is not None and response.status_code < 400:
                    check_response_size(response, max_response_bytes=get_settings().max_response_bytes)
            except Exception as exc:
                if _pending(request):  # failed before the endpoint ran: a refusal of the key comes first
                    await run_in_threadpool(admit_pending)
                admission = getattr(request.state, "admission", None)
                if admission is None:
                    raise
                error = _as_api_error(exc)
                after = await _settle_failure(request, admission)
                if error is None:
                    raise
                error.headers.update(after.headers())
                raise error from None
            if admission is None:
                return response
            if response.status_code >= 400:
                admission = await _settle_failure(request, admission)
            response.headers.update(admission.headers())
            return response

        return metered_handler


async def _settle_failure(request: Request, admission: Admission) -> Admission:
    settled = await run_in_threadpool(get_meter().refund, admission)
    request.state.admission = settled
    return settled


def _as_api_error(exc: Exception) -> ApiError | None:
    """The ApiError an exception is answered with (None: an unexpected one, answered 500 elsewhere)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, RequestValidationError):
        return validation_error(exc)
    if isinstance(exc, StarletteHTTPException):
        return http_error(exc)
    return None
