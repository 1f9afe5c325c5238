"""A metered request answered with an operation: 202 Accepted, its work queued, its result fetched later.

A conversion request becomes an operation when it names uploads (`?upload=upl_...`, repeated for merge) or
prefers an asynchronous answer (`Prefer: respond-async`, RFC 7240; the answer then says
`Preference-Applied: respond-async`). It is admitted (counted) like any conversion, then checked for all that
can be refused without converting, as the synchronous request would be refused (400, 404, 413), with nothing
stored or queued and the unit given back: its path and query (and an inline body's JSON) by the route's own
binder; a missing, foreign or expired upload, or one with no file; an input whose first bytes the route does not
take (empty, or another kind of file: fileapi.web.input_checks). Then the operation is recorded and queued
(fileapi.operations.service), and the answer is 202 with `Location: /v1/operations/{id}`, `Retry-After` and the
operation. An inline body asked for with
`Prefer: respond-async` is kept first as an upload of the account, so the operation reads it as it reads
any upload. Requests that ask for neither are answered synchronously, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from fileapi.errors import InvalidInput
from fileapi.web.invocation import off_the_loop
from fileapi.web.operation_inputs import UPLOAD_PARAMETER, max_uploads
from fileapi.web.routes import json_response

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from fileapi.metering.meter import Admission
    from fileapi.web.binding import Binder

RESPOND_ASYNC = "respond-async"


@dataclass(frozen=True)
class Asked:
    """What makes a request an operation: the uploads it names (in order), and whether it prefers one."""

    uploads: tuple[str, ...]
    prefer_async: bool


def asked(request: Request) -> Asked | None:
    """The operation `request` asks for, or None (it is answered synchronously)."""
    uploads = tuple(request.query_params.getlist(UPLOAD_PARAMETER))
    prefer_async = prefers_async(request.headers.getlist("prefer"))
    if not uploads and not prefer_async:
        return None
    return Asked(uploads, prefer_async)


def prefers_async(values: list[str]) -> bool:
    """Whether the Prefer header fields `values` hold the preference `respond-async` (RFC 7240: preferences are
    separated by commas, their names compared without regard to case, parameters after `;`)."""
    for value in values:
        for preference in value.split(","):
            name = preference.split(";", 1)[0].split("=", 1)[0].strip().lower()
            if name == RESPOND_ASYNC:
                return True
    return False


async def accept(request: Request, operation: Asked, binder: Binder, admission: Admission) -> Response:
    """Record and queue the operation `request` asks for (admitted, counted) and answer 202.

    :raises RequestValidationError: a path or query option, or an inline JSON body, the route refuses (400).
    :raises InvalidInput: uploads named on a route that takes no file, several on one that takes one, or a body
        beside them; an input the route refuses from its first bytes (or `UnsupportedFormat`).
    :raises NotFound: an upload that is not the account's, or expired.
    :raises ServiceUnavailable: operations are off, or the queue did not take it.
    """
    from fileapi.operations.services import get_file_services
    from fileapi.web.input_checks import start_check

    route = request.url.path
    body: tuple[bytes, str] | None = None
    if operation.uploads:
        binder.check_options(request)
        if not binder.takes_body:
            raise InvalidInput(f"{route} takes no file: leave out ?{UPLOAD_PARAMETER}=")
        most = max_uploads(route)
        if len(operation.uploads) > most:
            wanted = f"at most {most} uploads" if most > 1 else "one upload"
            raise InvalidInput(f"{route} takes {wanted} (?{UPLOAD_PARAMETER}=upl_...), not {len(operation.uploads)}")
        if await request.body():
            raise InvalidInput(f"send the file either as the body or as ?{UPLOAD_PARAMETER}=upl_..., not both")
    else:
        await binder.bind(request)  # the options, and a JSON body as the route reads it
        if binder.takes_body:
            body = (await request.body(), request.headers.get("content-type", "application/octet-stream"))
    query = urlencode([(name, value) for name, value in request.query_params.multi_items() if name != UPLOAD_PARAMETER])
    services = get_file_services()
    accepted = await off_the_loop(
        services.operations.submit,
        admission,
        route=route,
        query=query,
        uploads=operation.uploads,
        body=body,
        start_check=start_check(route),
    )
    from fileapi.operations.service import RETRY_AFTER_SECONDS

    response = json_response(services.operations.view(accepted))
    response.status_code = 202
    response.headers["Location"] = f"/v1/operations/{accepted.id}"
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if operation.prefer_async:
        response.headers["Preference-Applied"] = RESPOND_ASYNC
    return response
