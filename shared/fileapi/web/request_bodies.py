"""Request bodies as people send them: a form for a file, JSON under any label.

- A bytes-in route (one that reads its body through `fileapi.web.io.RawBody` or `TextBody`) takes the file as the raw
  body or as multipart/form-data (`curl -F file=@photo.jpg`). The form is read here, as it streams in and
  within the body limit; the route then gets the file's bytes as its body (Content-Type: the part's) and the
  form's other fields as query parameters. A field also given in the query string is 400 (given twice).
  Errors of the form wait until the route reads its body, after authentication, as a raw body's do.
- A bytes-in route that gets a body labelled as a form (`curl -d`) or as JSON, and does not declare that
  media type, is served as it is (`curl --data-binary @file` labels raw bytes as a form too); if the route
  then answers 400 about the body, the message says how to send a file (`BODY_HINT`, added by the error
  mapping).
- A JSON route (a model as its body) parses the body as JSON whatever its Content-Type: none, text/plain,
  application/x-www-form-urlencoded (`curl -d '{...}'`) or any other.

Other routes, and every raw body with another Content-Type, pass through after one header look-up.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from urllib.parse import parse_qsl, urlencode

from fastapi.routing import APIRoute
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fileapi.errors import ApiError, InvalidInput
from fileapi.metering.meter import Admission
from fileapi.web.binding import Binder
from fileapi.web.errors import BODY_HINT, BODY_HINT_KEY
from fileapi.web.io import is_json
from fileapi.web.multipart_file import FormFile, read_form_file, shown_name
from fileapi.web.served import ServedRoute

_FORM = b"application/x-www-form-urlencoded"
_JSON = b"application/json"
_MULTIPART = b"multipart/form-data"
# The media types a raw body's Content-Type is looked at for (a form's file, or a label the route may not take),
# and the characters of it that tell them apart.
_LABELS = (_MULTIPART, _FORM, _JSON)
_LABEL_CHARS = max(map(len, _LABELS))


# What a route's handler gives its endpoint itself (not from the request).
PROVIDED = (Admission,)


class BodyKind(Enum):
    RAW = "raw"
    JSON = "json"


@dataclass(frozen=True)
class RouteBody:
    """What a route reads: a raw body or a JSON model; for a raw body, the labels (form, JSON) it does not
    declare in its OpenAPI request body, whose 400s end with BODY_HINT."""

    kind: BodyKind
    hinted_labels: frozenset[bytes] = frozenset()


def route_bodies(routes: Iterable[BaseRoute]) -> dict[tuple[str, str], RouteBody]:
    """(method, path) of each route that reads a raw body or a JSON model, and what it reads (from its
    endpoint's signature, as fileapi.web.binding reads it)."""
    bodies: dict[tuple[str, str], RouteBody] = {}
    for route in routes:
        if isinstance(route, ServedRoute):
            binder = route.binder
        elif isinstance(route, APIRoute) and inspect.iscoroutinefunction(route.endpoint):
            binder = Binder.of(route.endpoint, provided=PROVIDED)  # FastAPI's own (tests/api/test_binding.py)
        else:
            continue
        reader = binder.reads
        if reader is not None:
            request_body = (route.openapi_extra or {}).get("requestBody", {})
            declared = {media.encode() for media in request_body.get("content", {})}
            if reader.text:
                declared.add(_JSON)  # a text route takes a JSON string (fileapi.web.io.text_of_json)
            hinted = frozenset() if b"*/*" in declared else frozenset({_FORM, _JSON} - declared)
            body = RouteBody(BodyKind.RAW, hinted)
        elif binder.json_body is not None:
            body = RouteBody(BodyKind.JSON)
        else:
            continue
        for method in route.methods or ():
            bodies[(method, route.path)] = body
    return bodies


class RequestBodyMiddleware:
    """Multipart files for bytes-in routes, JSON under any label for JSON routes (see the module)."""

    def __init__(self, app: ASGIApp, *, routes: Iterable[BaseRoute]) -> None:
        self.app = app
        self.bodies = route_bodies(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = self.bodies.get((scope.get("method", ""), scope.get("path", "")))
        if body is not None:
            receive = await as_the_route_reads(body, scope, receive)
        await self.app(scope, receive, send)


async def as_the_route_reads(body: RouteBody, scope: Scope, receive: Receive) -> Receive:
    """The request made what a route reading `body` takes (the scope changed in place): a form's file as the raw
    body, a JSON body labelled JSON; the receive that delivers it."""
    content_type = _header(scope, b"content-type")
    if body.kind is BodyKind.RAW:
        if content_type[:_LABEL_CHARS].lower().startswith(_LABELS):  # any other body passes as it is
            return await _form_or_labelled(scope, receive, content_type, body.hinted_labels)
    elif not is_json(content_type.decode("latin-1")):
        _replace_headers(scope, {b"content-type": _JSON})
    return receive


async def _form_or_labelled(
    scope: Scope, receive: Receive, content_type: bytes, hinted_labels: frozenset[bytes]
) -> Receive:
    """A form's file as the raw body; a body labelled as a form or JSON the route does not take marked for
    BODY_HINT."""
    media_type = content_type.partition(b";")[0].strip().lower()
    if media_type == _MULTIPART:
        return await _as_raw_body(scope, receive, content_type)
    if media_type in hinted_labels:
        scope[BODY_HINT_KEY] = BODY_HINT
    return receive


async def _as_raw_body(scope: Scope, receive: Receive, content_type: bytes) -> Receive:
    """Make the request what the route would have got with the form's file as a raw body (the scope is changed
    in place: the access log reads the matched route from it); the receive that delivers that body."""
    try:
        form = await read_form_file(content_type.decode("latin-1"), receive)
        scope["query_string"] = _merged_query(scope.get("query_string", b""), form)
    except ApiError as error:
        return _failing_receive(error)
    headers = {
        b"content-type": (form.content_type or "application/octet-stream").encode("latin-1"),
        b"content-length": str(form.size).encode("ascii"),
    }
    _replace_headers(scope, headers, drop=(b"transfer-encoding",))
    return _replaying_receive(form.chunks, receive)


def _merged_query(query_string: bytes, form: FormFile) -> bytes:
    if not form.fields:
        return query_string
    given = {name for name, _ in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)}
    for name, _ in form.fields:
        if name in given:
            raise InvalidInput(
                f"{shown_name(name)} is given both in the query string and as a form field; give it once"
            )
    extra = urlencode(form.fields).encode("ascii")
    return query_string + b"&" + extra if query_string else extra


def _replaying_receive(chunks: list[bytes], receive: Receive) -> Receive:
    pending = iter(chunks or [b""])
    left = len(chunks) or 1

    async def replay() -> Message:
        nonlocal left
        if left:
            left -= 1
            return {"type": "http.request", "body": next(pending), "more_body": left > 0}
        return await receive()  # after the body: the client's disconnect

    return replay


def _failing_receive(error: ApiError) -> Receive:
    async def fail() -> Message:
        raise error

    return fail


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return b""


def _replace_headers(scope: Scope, replaced: dict[bytes, bytes], *, drop: tuple[bytes, ...] = ()) -> None:
    kept = [(key, value) for key, value in scope.get("headers", ()) if key not in replaced and key not in drop]
    scope["headers"] = [*kept, *replaced.items()]
