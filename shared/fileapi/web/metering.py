"""Metering in the web layer: the admission dependencies, and the routes that admit, bind, answer and settle.

A metered request, top to bottom (`MeteredRoute`):

1. admit: authenticate, take a rate token and reserve a unit of the quota, in one conditional write
   (fileapi.metering.meter); a refusal (401, 403, 429, 503) is the answer, and nothing was reserved;
2. bind: the endpoint's arguments from the request (fileapi.web.binding); a problem is 400;
3. answer: the endpoint, which runs its conversion in a worker process or, for bounded work, in this one
   (fileapi.web.conversions);
4. settle: a success is size-checked and keeps its unit; any failure after admission (validation, the
   conversion, a response too large, a cancelled request) gives the unit back; the answer, success or error,
   carries X-Quota-Remaining and the RateLimit-* headers.

Self-service routes (`SelfServiceRoute`) admit without counting and never give back. The refusals come in the
contract's order because admission comes first: 401, 403, 429 rate_limited, 429 quota_exceeded, then 400s.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import anyio
from fastapi import Depends, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.errors import ApiError
from fileapi.metering.keys import KEY_PREFIX, key_prefix
from fileapi.metering.meter import Admission
from fileapi.settings import get_settings
from fileapi.web.binding import Binder
from fileapi.web.errors import http_error, validation_error
from fileapi.web.invocation import alone
from fileapi.web.limits import check_response_size
from fileapi.web.services import get_meter

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="API key as a bearer token: `Authorization: Bearer sk_live_...`",
)


def _admit(request: Request, counted: bool) -> Admission:
    """The store's write (blocking). The admission and the key's first characters go on the request's state
    for the access log."""
    authorization = request.headers.get("authorization")
    presented = (authorization or "").partition(" ")[2].strip()
    if presented.startswith(KEY_PREFIX):  # anything else may be some other secret: never logged
        request.state.key_prefix = key_prefix(presented)
    request_id = str(request.scope.get("state", {}).get("request_id") or "")
    admission = get_meter().admit(authorization, counted=counted, request_id=request_id)
    request.state.admission = admission
    return admission


async def admit(request: Request, *, counted: bool) -> Admission:
    """Admit `request` (counted: a unit of the quota reserved), on this thread when the process answers this
    request alone (a Lambda invocation), else on the thread pool.

    :raises ApiError: the refusal (401, 403, 429, 503).
    """
    if alone():
        return _admit(request, counted)
    return await run_in_threadpool(_admit, request, counted)


async def metered(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of conversion endpoints: authenticate, take a rate token, reserve a unit of the quota.
    (`MeteredRoute` admits its requests itself, first; the dependency declares the bearer scheme.)"""
    return await admit(request, counted=True)


async def self_service(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of self-service endpoints: authenticate and take a rate token; never counted."""
    return await admit(request, counted=False)


Metered = Annotated[Admission, Depends(metered)]
SelfService = Annotated[Admission, Depends(self_service)]
Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class MeteredRoute(APIRoute):
    """A conversion route: admitted (counted), bound, answered and settled in one handler (see the module).
    Its endpoint is a coroutine function whose parameters fileapi.web.binding binds; one annotated
    `Admission` gets the request's admission."""

    counted = True

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        self.app = _asgi(self.get_route_handler())

    def get_route_handler(self) -> Handler:
        binder = Binder.of(self.endpoint, provided=(Admission,))
        admission_argument = binder.provided.get(Admission)
        endpoint = self.endpoint
        counted = self.counted

        async def metered_request(request: Request) -> Response:
            admission = await admit(request, counted=counted)
            try:
                arguments = await binder.bind(request)
                if admission_argument is not None:
                    arguments[admission_argument] = admission
                response: Response = await endpoint(**arguments)
                check_response_size(response, max_response_bytes=get_settings().max_response_bytes)
            except BaseException as failure:
                with anyio.CancelScope(shield=True):  # a cancelled request gives its unit back too
                    admission = await _given_back(request, admission)
                error = _as_api_error(failure)
                if error is None:
                    raise
                error.headers.update(admission.headers())
                raise error from failure
            if response.status_code >= 400:
                admission = await _given_back(request, admission)
            for name, value in admission.headers().items():  # appended: none is on the response yet
                response.headers.append(name, value)
            return response

        return metered_request


class SelfServiceRoute(MeteredRoute):
    """A self-service route: admitted without counting (nothing to give back), answered with the headers."""

    counted = False


async def _given_back(request: Request, admission: Admission) -> Admission:
    """The admission after giving its unit back (one more write; nothing for an uncounted one)."""
    if not admission.counted:
        return admission
    settled = _refund(admission) if alone() else await run_in_threadpool(_refund, admission)
    request.state.admission = settled
    return settled


def _refund(admission: Admission) -> Admission:
    return get_meter().refund(admission)


def _as_api_error(exc: BaseException) -> ApiError | None:
    """The ApiError an exception is answered with (None: not ours to answer, e.g. a cancellation or a fault,
    answered 500 by the catch-all)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, RequestValidationError):
        return validation_error(exc)
    if isinstance(exc, StarletteHTTPException):
        return http_error(exc)
    return None


def _asgi(handler: Handler) -> ASGIApp:
    """The route's ASGI app: the request in, the handler's response out (errors go to the app's handlers)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)

    return app
