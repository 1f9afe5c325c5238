"""Metering in the web layer: the admission dependencies, and the routes that admit, bind, answer and settle.

A metered request, top to bottom (`MeteredRoute`):

0. claim its Idempotency-Key, if it is a POST that sends one (fileapi.web.idempotency_keys): a repeat of a
   request already answered gets that answer again, admitted without counting; the key with another request
   is 422, with the same one still running 409;
1. admit: authenticate, take a rate token and reserve a unit of the quota, in one conditional write
   (fileapi.metering.meter); a refusal (401, 403, 429, 503) is the answer, and nothing was reserved;
2. an operation, when the request names uploads (`?upload=`) or prefers one (`Prefer: respond-async`): its
   options checked by the route's binder, then recorded and queued (fileapi.web.operations); the answer is
   202 and the unit is the operation's from then on;
3. else bind: the endpoint's arguments from the request (fileapi.web.binding); a problem is 400;
4. answer: the endpoint, which runs its conversion in a worker process or, for bounded work, in this one
   (fileapi.web.conversions);
5. settle: a success is size-checked and keeps its unit; any failure after admission (validation, the
   conversion, a response too large, a cancelled request) gives the unit back; the answer, success or error,
   carries X-Quota-Remaining and the RateLimit-* headers. The Idempotency-Key keeps a success's answer and is
   released by a failure.

Self-service routes (`SelfServiceRoute`) admit without counting and never give back, and take no operations.
The refusals come in the contract's order because admission comes first: 401, 403, 429 rate_limited, 429
quota_exceeded, then 400s.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from fastapi import Depends, Request, Security
from fastapi.security import HTTPBearer
from starlette.responses import Response

from fileapi.errors import ApiError
from fileapi.isolation.tenants import Tenant, working_for
from fileapi.metering.keys import KEY_PREFIX, key_prefix
from fileapi.metering.meter import Admission
from fileapi.services import get_meter
from fileapi.settings import get_settings
from fileapi.web import idempotency_keys, operations
from fileapi.web.errors import as_api_error
from fileapi.web.invocation import off_the_loop
from fileapi.web.limits import check_response_size
from fileapi.web.served import Handler, ServedRoute

if TYPE_CHECKING:
    from fileapi.catalogue.declaration import Conversion

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="API key as a bearer token: `Authorization: Bearer sk_live_...`",
)


def _admit(request: Request, counted: bool) -> Admission:
    """The store's write (blocking). The admission and the key's first characters go on the request's state
    for the access log."""
    authorization = request.headers.get("authorization")
    state = request.scope.setdefault("state", {})  # what `request.state` reads and writes
    presented = (authorization or "").partition(" ")[2].strip()
    if presented.startswith(KEY_PREFIX):  # anything else may be some other secret: never logged
        state["key_prefix"] = key_prefix(presented)
    request_id = str(state.get("request_id") or "")
    admission = state["admission"] = get_meter().admit(authorization, counted=counted, request_id=request_id)
    return admission


async def admit(request: Request, *, counted: bool) -> Admission:
    """Admit `request` (counted: a unit of the quota reserved), on this thread when the process answers this
    request alone (a Lambda invocation), else on the thread pool.

    :raises ApiError: the refusal (401, 403, 429, 503).
    """
    return await off_the_loop(_admit, request, counted)


async def metered(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of conversion endpoints: authenticate, take a rate token, reserve a unit of the quota.
    (`MeteredRoute` admits its requests itself, first; the dependency declares the bearer scheme.)"""
    return await admit(request, counted=True)


async def self_service(request: Request, _: Any = Security(bearer_scheme)) -> Admission:
    """Dependency of self-service endpoints: authenticate and take a rate token; never counted."""
    return await admit(request, counted=False)


Metered = Annotated[Admission, Depends(metered)]
SelfService = Annotated[Admission, Depends(self_service)]
# The attribute of a catalogue route's endpoint that holds its declaration (fileapi.web.catalogue_routes).
CONVERSION = "conversion"


class MeteredRoute(ServedRoute):
    """A conversion route: admitted (counted), bound, answered and settled in one handler (see the module).
    Its endpoint is a coroutine function whose parameters fileapi.web.binding binds; one annotated
    `Admission` gets the request's admission."""

    counted = True
    provided = (Admission,)

    def __init__(self, path: str, endpoint: Callable[..., Any], **declared: Any) -> None:
        self.conversion: Conversion | None = getattr(endpoint, CONVERSION, None)  # a catalogue route's declaration
        super().__init__(path, endpoint, **declared)

    def handler(self) -> Handler:
        binder = self.binder
        admission_argument = binder.provided.get(Admission)
        endpoint = self.endpoint
        counted = self.counted
        conversion = self.conversion

        async def metered_request(request: Request) -> Response:
            claim = await idempotency_keys.claim(request)
            if isinstance(claim, idempotency_keys.Replay):
                return claim.response(await admit(request, counted=False))
            try:
                response = await answer(request)
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await idempotency_keys.release(claim)
                raise
            await idempotency_keys.keep(claim, response)
            return response

        async def answer(request: Request) -> Response:
            admission = await admit(request, counted=counted)
            with working_for(admission.account_id) as tenant:  # its conversions wait in its account's turn
                return await answered(request, admission, tenant)

        async def answered(request: Request, admission: Admission, tenant: Tenant) -> Response:
            try:
                asked = operations.asked(request) if conversion is not None else None
                if asked is not None:
                    assert conversion is not None
                    response = await operations.accept(request, asked, binder, conversion, admission)
                else:
                    arguments = await binder.bind(request)
                    if admission_argument is not None:
                        arguments[admission_argument] = admission
                    response = await endpoint(**arguments)
                    check_response_size(response, max_response_bytes=get_settings().max_response_bytes)
            except BaseException as failure:
                with anyio.CancelScope(shield=True):  # a cancelled request gives its unit back too
                    admission = await _given_back(request, admission)
                    await _charge_held(admission, tenant)
                error = as_api_error(failure)
                if error is None:
                    raise
                error.headers.update(admission.headers())
                raise error from failure
            if response.status_code >= 400:
                admission = await _given_back(request, admission)
            response.raw_headers += raw_headers(admission.headers())  # appended: none is on the response yet
            return response

        return metered_request


class SelfServiceRoute(MeteredRoute):
    """A self-service route: admitted without counting (nothing to give back), answered with the headers."""

    counted = False


def raw_headers(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """`headers` as a response's raw headers (what `MutableHeaders.append` adds for each, without making the
    response's `MutableHeaders` for them)."""
    return [(_raw_name(name), value.encode("latin-1")) for name, value in headers.items()]


@functools.cache  # the metering headers' few names (X-Quota-Remaining, RateLimit-*, Deprecation, Link)
def _raw_name(name: str) -> bytes:
    return name.lower().encode("latin-1")


async def _given_back(request: Request, admission: Admission) -> Admission:
    """The admission after giving its unit back (one more write; nothing for an uncounted one)."""
    if not admission.counted:
        return admission
    settled = await off_the_loop(_refund, admission)
    request.state.admission = settled
    return settled


def _refund(admission: Admission) -> Admission:
    return get_meter().refund(admission)


async def _charge_held(admission: Admission, tenant: Tenant) -> None:
    """The seconds the request's jobs held a worker before they were ended for time, charged to its key's rate
    (Meter.hold); a store that cannot be reached leaves them uncharged, and the request's own answer stands."""
    if tenant.overrun_seconds > 0:
        with contextlib.suppress(ApiError):
            await off_the_loop(get_meter().hold, admission, tenant.overrun_seconds)
