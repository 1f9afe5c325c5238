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
from fileapi.web.binding import UPLOAD_PARAMETER, query_of
from fileapi.web.invocation import off_the_loop
from fileapi.web.routes import json_response

if TYPE_CHECKING:
    from pydantic import BaseModel
    from starlette.requests import Request
    from starlette.responses import Response

    from fileapi.catalogue.declaration import Conversion
    from fileapi.file_services import FileServices
    from fileapi.metering.meter import Admission
    from fileapi.operations.records import Operation
    from fileapi.web.binding import Binder

RESPOND_ASYNC = "respond-async"


@dataclass(frozen=True)
class Asked:
    """What makes a request an operation: the uploads it names (in order), and whether it prefers one."""

    uploads: tuple[str, ...]
    prefer_async: bool


def asked(request: Request) -> Asked | None:
    """The operation `request` asks for, or None (it is answered synchronously)."""
    uploads = tuple(query_of(request).getlist(UPLOAD_PARAMETER)) if request.scope.get("query_string") else ()
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


async def accept(
    request: Request, operation: Asked, binder: Binder, conversion: Conversion, admission: Admission
) -> Response:
    """Record and queue the operation `request` asks for (admitted, counted) and answer 202. Everything the
    synchronous request would refuse before converting is refused here, with nothing queued: its options, its
    body (read as the conversion reads it; an inline body is kept as uploads, one per file), the uploads named.

    :raises RequestValidationError: an option the conversion refuses (400).
    :raises InvalidInput: uploads named on a conversion that takes no file, too many, a body beside them, or an
        empty body where a file is needed; an input the conversion refuses from its first bytes (or
        `UnsupportedFormat`: fileapi.web.input_checks).
    :raises NotFound: an upload that is not the account's, or expired.
    :raises ServiceUnavailable: operations are off, or the queue did not take it.
    """
    # Here, not at module level: a function without catalogue routes (Files, Account) never accepts one, and its
    # cold start then leaves the catalogue out (fileapi.web.metering imports this module).
    from fileapi.catalogue.declaration import ANY, Reads
    from fileapi.services import get_file_services
    from fileapi.web.input_checks import start_check

    route = request.url.path
    takes = conversion.takes
    check = start_check(conversion)
    options: BaseModel | None = None
    bodies: list[tuple[bytes, str]] = []
    if operation.uploads:
        most = takes.most
        if len(operation.uploads) > most:
            wanted = f"at most {most} uploads" if most > 1 else "one upload"
            raise InvalidInput(f"{route} takes {wanted} (?{UPLOAD_PARAMETER}=upl_...), not {len(operation.uploads)}")
        if await request.body():
            raise InvalidInput(f"send the file either as the body or as ?{UPLOAD_PARAMETER}=upl_..., not both")
        options = binder.check_options(request).get("options")  # a JSON body uploaded is read by the operation
    elif takes.reads is Reads.FILES:
        from fileapi.web.pdf_bodies import read_many

        options = binder.check_options(request).get("options")
        bodies = [(document, takes.accepts) for document in await read_many(request, conversion)]
    elif takes.reads is Reads.FORM_FILL:
        from fileapi.web.pdf_bodies import read_form_fill

        document, options = await read_form_fill(request)
        bodies = [(document, takes.accepts)]
    else:
        arguments = await binder.bind(request)
        options = arguments.get("options")
        if takes.takes_file:
            body: bytes = arguments["body"]
            # An empty file is refused where the synchronous request refuses it too: a check words it as the route
            # does; other files (SVG, a JSON document) as here; text may be empty (an empty text is 200 there).
            if not body and takes.accepts != ANY and takes.reads is not Reads.TEXT and check is None:
                raise InvalidInput(f"the body is empty: {route} converts a file; send it as the body")
            kind = takes.accepts if takes.reads is Reads.TEXT else request.headers.get("content-type")
            bodies = [(body, kind or "application/octet-stream")]
    given = options.model_dump(mode="json", by_alias=True, exclude_unset=True) if options is not None else None
    query = urlencode([(name, value) for name, value in request.query_params.multi_items() if name != UPLOAD_PARAMETER])
    services = get_file_services()
    accepted_operation = await off_the_loop(
        services.operations.submit,
        admission,
        route=route,
        query=query,
        options=given,
        uploads=operation.uploads,
        bodies=bodies,
        start_check=check,
    )
    return accepted(services, accepted_operation, prefer_async=operation.prefer_async)


def accepted(services: FileServices, operation: Operation, *, prefer_async: bool, waited: bool = False) -> Response:
    """The answer to a request that became `operation`: 202 with Location and Retry-After (and
    Preference-Applied when it preferred respond-async); 200 with the operation when `waited` saw it end."""
    from fileapi.operations.service import RETRY_AFTER_SECONDS

    response = json_response(services.operations.view(operation))
    if waited and operation.ended:
        response.headers["Preference-Applied"] = "wait"
        return response
    response.status_code = 202
    response.headers["Location"] = f"/v1/operations/{operation.id}"
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if prefer_async:
        response.headers["Preference-Applied"] = RESPOND_ASYNC
    return response
