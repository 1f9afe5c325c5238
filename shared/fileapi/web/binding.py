"""An endpoint's arguments from its request, planned once from its signature, on pydantic's public API.

A metered endpoint takes a few kinds of parameter, each told by its annotation:

- `Request`: the request;
- a body reader (`fileapi.web.io.RawBody`, `TextBody`: `bytes` marked with a `BodyReader`): its bytes;
- an options model (a `fileapi.models.QueryOptions`): the query parameters under its fields' aliases, validated
  by the model;
- another pydantic model: the JSON body, decoded and validated by the model;
- a type the caller provides (`Binder.of(..., provided=(Admission,))`): left for the caller to fill;
- a parameter named in the route's path (`Binder.of(..., path="/v1/operations/{operation_id}")`): that segment,
  validated by a `TypeAdapter` of its annotation;
- anything else (`Annotated[int, Query(ge=1)]`, `Literal[...]`, a str with a default): one query parameter,
  validated by a `TypeAdapter` of its annotation (pydantic reads the bounds of FastAPI's `Query()`, a
  `FieldInfo`).

A query parameter the endpoint does not take is an error too (FastAPI ignores it), named with the names it does
take, so that the error mapping can say which one was meant (`qualty`: did you mean `quality`?); the protocol's
own (`upload`, `PROTOCOL_PARAMETERS`) is taken everywhere. A form's fields reach the binder as query parameters
(fileapi.web.request_bodies), so a misspelled form field is refused the same way.

FastAPI reads the same signature for the OpenAPI document; this module answers the requests. Every problem
with the parameters is raised at once as FastAPI's public `RequestValidationError`, with FastAPI's locations
(`("query", name, ...)`, `("body", ...)`) and pydantic's messages, so the one error mapping
(fileapi.web.errors) words them. A query parameter given more than once is an error (FastAPI takes the last).
tests/api/test_binding.py holds the answers to FastAPI's own dependency solving, at the versions it pins.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Annotated, Any

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from fileapi.models import QueryOptions, wire_names
from fileapi.web.io import BodyReader, is_json

Arguments = dict[str, Any]
_REQUIRED = inspect.Parameter.empty
_PATH_PARAMETER = re.compile(r"{([^}:]+)(?::[^}]*)?}")
# The query parameter that names an upload as a conversion's input (fileapi.web.operations reads it).
UPLOAD_PARAMETER = "upload"
# Query parameters of the protocol, not of an endpoint: every endpoint takes them.
PROTOCOL_PARAMETERS = (UPLOAD_PARAMETER,)
# pydantic's type for a name a model does not know (fileapi.web.errors words it from ctx["known"]).
_UNKNOWN = "extra_forbidden"


@dataclass(frozen=True)
class QueryParameter:
    """One query parameter: its endpoint argument, its name in the query, its validator and default."""

    argument: str
    alias: str
    adapter: TypeAdapter[Any]
    default: Any  # _REQUIRED when it has none


@dataclass(frozen=True)
class QueryModel:
    """An options model: its endpoint argument, the model and the query names of its fields."""

    argument: str
    model: type[QueryOptions]
    aliases: tuple[str, ...]
    repeatable: frozenset[str] = frozenset()  # the query names of its list fields: given once per value

    @cached_property
    def default(self) -> QueryOptions | None:
        """The options of a request whose query gives none of the model's fields, validated once: QueryOptions are
        frozen, so one instance serves them all (validating `{}` cost a small request several microseconds). None
        when the model requires a field (each such request gets its errors)."""
        try:
            options = self.model.model_validate({})
        except ValidationError:
            return None
        arguments = options.model_dump()
        if all(isinstance(value, _IMMUTABLE) for value in arguments.values()):
            _default_arguments[self.model] = (options, arguments)
        return options


# Values an options model's arguments may hold to be shared by every request that takes the defaults.
_IMMUTABLE = (str, bytes, int, float, bool, type(None), Enum, tuple, frozenset)
# Per options model: its default instance (`QueryModel.default`) and that instance's model_dump().
_default_arguments: dict[type[QueryOptions], tuple[QueryOptions, dict[str, Any]]] = {}


def options_arguments(options: QueryOptions) -> dict[str, Any]:
    """`options.model_dump()`, a new dict; for a model's default instance (`QueryModel.default`), dumped once."""
    default = _default_arguments.get(type(options))
    if default is not None and default[0] is options:
        return dict(default[1])
    return options.model_dump()


@dataclass(frozen=True)
class Binder:
    """How one endpoint's arguments come from a request (`bind`)."""

    readers: tuple[tuple[str, BodyReader], ...]
    request: str | None
    path: tuple[QueryParameter, ...]
    query: tuple[QueryParameter, ...]
    models: tuple[QueryModel, ...]
    json_body: tuple[str, TypeAdapter[Any]] | None
    provided: dict[type, str]  # type -> the argument the caller fills with its value

    @classmethod
    def of(cls, endpoint: Callable[..., Awaitable[Any]], *, provided: tuple[type, ...] = (), path: str = "") -> Binder:
        """The binder of `endpoint` (a coroutine function), leaving the arguments of the `provided` types to
        the caller; the parameters named in `path` (the route's, e.g. `/v1/webhooks/{webhook_id}`) come from it.

        :raises TypeError: a parameter of a kind this module does not bind, or more than one body.
        """
        if not inspect.iscoroutinefunction(endpoint):
            raise TypeError(f"{endpoint.__qualname__}: a bound endpoint is a coroutine function")
        hints = typing.get_type_hints(endpoint, include_extras=True)
        readers: list[tuple[str, BodyReader]] = []
        request: str | None = None
        in_path = set(_PATH_PARAMETER.findall(path))
        path_parameters: list[QueryParameter] = []
        query: list[QueryParameter] = []
        models: list[QueryModel] = []
        json_body: tuple[str, TypeAdapter[Any]] | None = None
        given: dict[type, str] = {}
        for name, parameter in inspect.signature(endpoint).parameters.items():
            annotation = hints.get(name, Any)
            kind, metadata = _unwrapped(annotation)
            reader = next((item for item in metadata if isinstance(item, BodyReader)), None)
            if kind in provided:
                given[kind] = name
            elif reader is not None:
                readers.append((name, reader))
            elif isinstance(kind, type) and issubclass(kind, Request):
                request = name
            elif isinstance(kind, type) and issubclass(kind, QueryOptions):
                models.append(QueryModel(name, kind, wire_names(kind), _repeatable(kind)))
            elif isinstance(kind, type) and issubclass(kind, BaseModel):
                if json_body is not None:
                    raise TypeError(f"{endpoint.__qualname__}: more than one JSON body ({json_body[0]}, {name})")
                json_body = (name, TypeAdapter(kind))
            else:
                alias = next((item.alias for item in metadata if getattr(item, "alias", None)), None) or name
                found = path_parameters if alias in in_path else query
                found.append(QueryParameter(name, alias, TypeAdapter(annotation), parameter.default))
        if json_body is not None and readers:
            raise TypeError(f"{endpoint.__qualname__}: a JSON body and a body reader")
        return cls(tuple(readers), request, tuple(path_parameters), tuple(query), tuple(models), json_body, given)

    @property
    def reads(self) -> BodyReader | None:
        """The body reader of the endpoint, if it takes its body raw (or as text)."""
        return self.readers[0][1] if self.readers else None

    @property
    def takes_body(self) -> bool:
        """Whether the endpoint reads a request body (raw, text, JSON, or through the request itself)."""
        return bool(self.readers) or self.request is not None or self.json_body is not None

    async def bind(self, request: Request, *, body: Any = _REQUIRED, open_query: bool = False) -> Arguments:
        """The endpoint's arguments from `request`.

        :param body: the value of the body reader's argument, instead of the body read from `request` (an
            operation's input file, `fileapi.isolation.files.FileInput`).
        :param open_query: let query parameters the endpoint does not take pass (a public route that takes no
            parameter and no body: fileapi.web.served).
        :raises RequestValidationError: every problem with the path, the query and the JSON body, at once.
        :raises ApiError: a body reader's refusal (e.g. a text route's JSON body that is not a string).
        """
        values: Arguments = {}
        for argument, reader in self.readers:
            values[argument] = await reader.read(request) if body is _REQUIRED else body
        if self.request is not None:
            values[self.request] = request
        errors = self._options(request, values, open_query=open_query)
        if self.json_body is not None:
            argument, adapter = self.json_body
            values[argument] = _json_model(
                adapter, await request.body(), request.headers.get("content-type", ""), errors
            )
        if errors:
            raise RequestValidationError(errors)
        return values

    def check_options(self, request: Request) -> Arguments:
        """The path and query arguments of `request`, validated as `bind` does, without reading its body.

        :raises RequestValidationError: every problem with them, at once.
        """
        values: Arguments = {}
        errors = self._options(request, values)
        if errors:
            raise RequestValidationError(errors)
        return values

    def _options(self, request: Request, values: Arguments, *, open_query: bool = False) -> list[dict[str, Any]]:
        """Fill `values` with the path and query arguments; the problems found."""
        received = query_of(request)
        errors = [] if open_query else self._query_problems(received)
        for parameter in self.path:
            values[parameter.argument] = _path_value(parameter, request.path_params, errors)
        for parameter in self.query:
            values[parameter.argument] = _query_value(parameter, received, errors)
        for model in self.models:
            values[model.argument] = _query_model(model, received, errors)
        return errors

    @cached_property
    def query_names(self) -> tuple[str, ...]:
        """The query parameters the endpoint takes itself: its parameters, then its options models' fields (every
        endpoint takes the `PROTOCOL_PARAMETERS` too)."""
        return tuple(parameter.alias for parameter in self.query) + tuple(
            alias for model in self.models for alias in model.aliases
        )

    @cached_property
    def repeatable(self) -> frozenset[str]:
        """The query parameters that may be given more than once (its options models' list fields)."""
        return frozenset(alias for model in self.models for alias in model.repeatable)

    def _query_problems(self, received: QueryParams) -> list[dict[str, Any]]:
        """A parameter given twice (but a list field's), and each one the endpoint does not take (with those it
        does)."""
        if not received:  # nothing given: nothing twice, nothing unknown
            return []
        names = self.query_names
        repeatable = self.repeatable
        errors = [
            {"type": "repeated", "loc": ("query", name), "msg": "given more than once; give it once", "input": None}
            for name in names
            if name not in repeatable and len(received.getlist(name)) > 1
        ]
        return errors + unknown_query(received, names)


def unknown_query(received: QueryParams, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """An error for each parameter of `received` that is neither one of `names` nor the protocol's, in order,
    each once, with the names that are known (for the error mapping's "did you mean")."""
    taken = {*names, *PROTOCOL_PARAMETERS}
    context = {"known": list(names), "protocol": list(PROTOCOL_PARAMETERS)}
    return [
        {
            "type": _UNKNOWN,
            "loc": ("query", name),
            "msg": "Extra inputs are not permitted",
            "input": None,
            "ctx": context,
        }
        for name in dict.fromkeys(received)
        if name not in taken
    ]


def closed_query(app: ASGIApp, names: tuple[str, ...]) -> ASGIApp:
    """`app` (a route's) refusing a query parameter that is not one of `names` nor the protocol's, as `Binder.bind`
    does, for a route FastAPI solves itself (which ignores them).

    :raises RequestValidationError: naming each unknown parameter, before `app` runs.
    """

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        errors = unknown_query(QueryParams(scope.get("query_string", b"")), names)
        if errors:
            raise RequestValidationError(errors)
        await app(scope, receive, send)

    return checked


_NO_QUERY = QueryParams()  # immutable: shared by every request without a query string


def query_of(request: Request) -> QueryParams:
    """`request.query_params`, with nothing parsed when there is no query string (most requests: parsing even an
    empty one costs microseconds)."""
    return request.query_params if request.scope.get("query_string") else _NO_QUERY


def _unwrapped(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """The type inside `Annotated[...]` and its metadata (no metadata for a plain type)."""
    if typing.get_origin(annotation) is Annotated:
        kind, *metadata = typing.get_args(annotation)
        return kind, tuple(metadata)
    return annotation, ()


def _repeatable(model: type[BaseModel]) -> frozenset[str]:
    """The query names of `model`'s list fields (redact's `text`, `pattern`, `area`)."""
    return frozenset(
        info.alias or name for name, info in model.model_fields.items() if typing.get_origin(info.annotation) is list
    )


def _located(error: Any, *location: Any) -> dict[str, Any]:
    return {**error, "loc": (*location, *error["loc"])}


def _query_value(parameter: QueryParameter, received: QueryParams, errors: list[dict[str, Any]]) -> Any:
    raw = received.get(parameter.alias)
    if raw is None:
        if parameter.default is _REQUIRED:
            errors.append(
                {"type": "missing", "loc": ("query", parameter.alias), "msg": "Field required", "input": None}
            )
        return None if parameter.default is _REQUIRED else parameter.default
    try:
        return parameter.adapter.validate_python(raw)
    except ValidationError as exc:
        errors += [_located(error, "query", parameter.alias) for error in exc.errors(include_url=False)]
        return None


def _path_value(parameter: QueryParameter, received: dict[str, Any], errors: list[dict[str, Any]]) -> Any:
    try:
        return parameter.adapter.validate_python(received.get(parameter.alias, ""))
    except ValidationError as exc:
        errors += [_located(error, "path", parameter.alias) for error in exc.errors(include_url=False)]
        return None


def _query_model(model: QueryModel, received: QueryParams, errors: list[dict[str, Any]]) -> Any:
    if not received and model.default is not None:  # no query string (most requests): the defaults, checked once
        return model.default
    given: dict[str, Any] = {
        alias: received.getlist(alias) if alias in model.repeatable else received[alias]
        for alias in model.aliases
        if alias in received
    }
    if not given and model.default is not None:
        return model.default
    try:
        return model.model.model_validate(given)
    except ValidationError as exc:
        errors += [_located(error, "query") for error in exc.errors(include_url=False)]
        return None


def _json_model(adapter: TypeAdapter[Any], body: bytes, content_type: str, errors: list[dict[str, Any]]) -> Any:
    """The JSON body validated by `adapter`, as FastAPI gives a body model its value: decoded when labelled JSON
    (RequestBodyMiddleware labels the JSON routes' bodies), the bytes when not, missing when empty."""
    if not body:
        errors.append({"type": "missing", "loc": ("body",), "msg": "Field required", "input": None})
        return None
    value: Any = body
    if is_json(content_type):
        try:
            value = json.loads(body)
        except json.JSONDecodeError as exc:
            errors.append(
                {
                    "type": "json_invalid",
                    "loc": ("body", exc.pos),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": exc.msg},
                }
            )
            return None
        except (RecursionError, ValueError):  # nested deeper than the decoder goes, or not UTF-8
            raise HTTPException(status_code=400, detail="There was an error parsing the body") from None
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        errors += [_located(error, "body") for error in exc.errors(include_url=False)]
        return None
