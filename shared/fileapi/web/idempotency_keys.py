"""Idempotency-Key on the metered routes' POSTs: claimed before admission, the answer kept or the claim released.

A POST with `Idempotency-Key` is fingerprinted (method, path, query as given, SHA-256 of the body) and claimed
under the hash of the API key it presents (fileapi.idempotency): the first request runs and its answer is kept
24 hours (a success or redirect; an error releases the claim, so a retry runs); a repeat gets that answer
again, not counted (it still authenticates: an uncounted admission); the key with another request is 422, and
with the same one still running 409. A request without a well-formed API key claims nothing: admission answers
it 401 first.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from fileapi.errors import Unauthorized
from fileapi.metering.keys import hash_key, parse_bearer
from fileapi.web.invocation import off_the_loop

if TYPE_CHECKING:  # the store comes with botocore, on a request's first key (fileapi.cold_imports)
    from fileapi.idempotency import Claim, IdempotencyStore, Stored
    from fileapi.metering.meter import Admission

HEADER = "idempotency-key"
log = logging.getLogger("fileapi")


@dataclass(frozen=True)
class Replay:
    """The answer of the request's first sending, to be given again."""

    stored: Stored

    def response(self, admission: Admission) -> Response:
        """The stored answer, with the metering headers of the repeat's own (uncounted) admission."""
        response = Response(self.stored.body, status_code=self.stored.status)
        for name, value in self.stored.headers:
            response.headers[name] = value
        for name, value in admission.headers().items():
            response.headers.append(name, value)
        return response


@dataclass(frozen=True)
class Held:
    """A claim this request holds, and the store it is in."""

    store: IdempotencyStore
    claim: Claim


async def claim(request: Request) -> Held | Replay | None:
    """This request's claim on its Idempotency-Key, or the stored answer of its first sending; None without a
    key (or a key that is not a POST's, or no well-formed API key beside it).

    :raises InvalidInput: a malformed Idempotency-Key.
    :raises IdempotencyKeyReused: the key was used for another request.
    :raises IdempotencyInFlight: the same request is still being answered.
    """
    if HEADER not in request.headers or request.method != "POST":  # `in`: a get's miss raises and catches
        return None
    key = request.headers[HEADER]
    from fileapi.idempotency import Stored, fingerprint
    from fileapi.services import get_file_services

    try:
        scope = hash_key(parse_bearer(request.headers.get("authorization")))
    except Unauthorized:
        return None
    body = await request.body()
    request_fingerprint = fingerprint(
        request.method, request.url.path, request.query_params.multi_items(), hashlib.sha256(body).hexdigest()
    )
    store = get_file_services().idempotency
    found = await off_the_loop(store.claim, scope, key, request_fingerprint)
    return Replay(found) if isinstance(found, Stored) else Held(store, found)


async def keep(held: Held | None, response: Response) -> None:
    """Keep `response` as the answer of the held claim (a success or a redirect), else release the claim."""
    if held is None:
        return
    body = getattr(response, "body", None)  # a streamed answer has none to keep
    if response.status_code >= 400 or not isinstance(body, bytes):
        await release(held)
        return
    from fileapi.idempotency import Stored

    answer = Stored(status=response.status_code, headers=tuple(response.headers.items()), body=body)
    try:
        await off_the_loop(held.store.complete, held.claim, answer)
    except Exception:  # the answer stands: a finished request is never turned into an error by its key
        log.warning("idempotency: an answer could not be kept; a repeat may run again", exc_info=True)


async def release(held: Held | None) -> None:
    """Forget the held claim (the request failed: the same key may be sent again)."""
    if held is not None:
        await off_the_loop(held.store.release, held.claim)
