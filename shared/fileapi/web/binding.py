"""A metered endpoint's arguments from its request, without FastAPI's per-request dependency solving.

FastAPI resolves an endpoint's parameters by walking its dependency tree on every request (the router's
`metered` dependency and its bearer scheme, the body reader, then the parameters): about half of the
stack's own cost per request (`make bench-quick`). The metered routes use a few kinds of parameter only,
so their binding is planned once per route, from the dependant FastAPI built for the OpenAPI document,
and a request runs the plan:

- the router's `metered` dependency: the request is marked for admission (what the dependency does; its
  bearer scheme only documents the Authorization header);
- `RawBody` / `TextBody`: the body reader, called as FastAPI would;
- query parameters one by one: FastAPI's own validation of them (`request_params_to_args`), so values,
  defaults and the errors' wording are FastAPI's; an options model of plain fields: the model's own
  validation, as FastAPI calls it (`QueryModel`);
- a JSON body model: the body decoded and validated by FastAPI's own function (`request_body_to_args`);
- `Request`: the request.

A route with any other kind of parameter (a dependency with its own parameters, headers, cookies, forms,
background tasks) or whose endpoint does not return a `Response` has no plan and is served by FastAPI's
handler. The errors are FastAPI's `RequestValidationError`, raised where FastAPI raises it: after the
dependencies, with every parameter's problem at once. One difference, on purpose: FastAPI decodes a JSON
body before the dependencies run, so a body that is not JSON sent without a key was answered 400; here the
request is marked for admission first, so the key is refused first (401), in the contract's order.
tests/api/test_binding.py sends the same requests through both and compares the answers.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi._compat import ModelField
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import request_body_to_args, request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from fileapi.web.io import is_json

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
BodyReader = Callable[[Request], Awaitable[bytes]]


@dataclass(frozen=True)
class QueryModel:
    """A query parameter that is an options model of plain fields: validated by the model itself, as FastAPI
    validates it (the parameters under the fields' aliases, each error located in "query"), without FastAPI's
    general path for models (aliases looked up, sequences and extras reshaped: about 10 us a request)."""

    parameter: str
    model: type[BaseModel]
    aliases: tuple[str, ...]

    @classmethod
    def of(cls, field: ModelField) -> QueryModel | None:
        model = field.field_info.annotation
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or model.model_config.get("extra"):
            return None
        fields = model.model_fields
        if any(
            _is_sequence(info.annotation) or info.validation_alias not in (None, info.alias) for info in fields.values()
        ):
            return None
        return cls(field.name, model, tuple(info.alias or name for name, info in fields.items()))

    def validate(self, received: QueryParams) -> tuple[Any, list[dict[str, Any]]]:
        given = {alias: received[alias] for alias in self.aliases if alias in received}
        try:
            return self.model.model_validate(given), []
        except ValidationError as exc:
            return None, [{**error, "loc": ("query", *error["loc"])} for error in exc.errors(include_url=False)]


@dataclass(frozen=True)
class Plan:
    """How one route's endpoint gets its arguments from a request."""

    call: Callable[..., Awaitable[Response]]
    marks: tuple[Callable[[Request], None], ...]  # marking dependencies (no parameters, no value), in order
    readers: tuple[tuple[str, BodyReader], ...]  # (parameter, body reader)
    query_models: tuple[QueryModel, ...]  # options models validated here
    query: Dependant  # the other query parameters, validated by FastAPI's function
    body: Dependant | None  # the JSON body's fields, when the endpoint takes a model
    embed_body: bool
    request_parameter: str | None


def plan_of(route: APIRoute, marks: dict[Callable[..., Any], Callable[[Request], None]]) -> Plan | None:
    """The binding plan of `route`; None when it takes a parameter this module does not bind.

    :param marks: the route's parameter-less dependencies that only mark the request (e.g. `metered`), each
        with what it does to the request.
    """
    dependant = route.dependant
    if not _returns_response(route.endpoint) or not _bindable(dependant):
        return None
    found_marks: list[Callable[[Request], None]] = []
    readers: list[tuple[str, BodyReader]] = []
    for dependency in dependant.dependencies:
        if dependency.call in marks and dependency.name is None:
            found_marks.append(marks[dependency.call])
        elif dependency.name is not None and _is_body_reader(dependency):
            readers.append((dependency.name, typing.cast(BodyReader, dependency.call)))
        else:
            return None
    if len(dependant.body_params) > 1 or (dependant.body_params and readers):
        return None
    call = dependant.call
    if call is None or not inspect.iscoroutinefunction(call):  # MeteredRoute's endpoints are coroutines
        return None
    models = [model for model in map(QueryModel.of, dependant.query_params) if model is not None]
    modelled = {model.parameter for model in models}
    others = [field for field in dependant.query_params if field.name not in modelled]
    return Plan(
        call=call,
        marks=tuple(found_marks),
        readers=tuple(readers),
        query_models=tuple(models),
        query=Dependant(query_params=others),
        body=dependant if dependant.body_params else None,
        embed_body=bool(getattr(route, "_embed_body_fields", False)),
        request_parameter=dependant.request_param_name,
    )


def bound_handler(plan: Plan) -> Handler:
    """A request handler that runs `plan` and the endpoint (FastAPI's handler, less dependency solving)."""

    async def handle(request: Request) -> Response:
        for mark in plan.marks:
            mark(request)
        values: dict[str, Any] = {}
        for name, reader in plan.readers:
            values[name] = await reader(request)
        if plan.request_parameter is not None:
            values[plan.request_parameter] = request
        errors: list[Any] = []
        if plan.query.query_params:
            query_values, errors = request_params_to_args(plan.query.query_params, request.query_params)
            values.update(query_values)
        for query_model in plan.query_models:
            values[query_model.parameter], model_errors = query_model.validate(request.query_params)
            errors += model_errors
        if plan.body is not None:
            body_values, body_errors = await request_body_to_args(
                plan.body.body_params, await _json_body(request), plan.embed_body
            )
            values.update(body_values)
            errors += body_errors
        if errors:
            raise RequestValidationError(errors)
        return await plan.call(**values)

    return handle


async def _json_body(request: Request) -> Any:
    """The body as FastAPI gives it to a JSON body model: decoded when labelled JSON (RequestBodyMiddleware
    has labelled a JSON body sent under another Content-Type), the bytes when not, absent when empty.

    :raises RequestValidationError: a body labelled JSON is not JSON (FastAPI's json_invalid error).
    :raises HTTPException: 400, the body could not be decoded otherwise (e.g. nested too deep).
    """
    body = await request.body()
    if not body:
        return PydanticUndefined
    if not is_json(request.headers.get("content-type", "")):
        return body
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        error = {"type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error", "input": {}}
        raise RequestValidationError([{**error, "ctx": {"error": exc.msg}}], body=exc.doc) from None
    except Exception:  # FastAPI's answer to any other failure (a RecursionError on deep nesting)
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from None


def _returns_response(endpoint: Callable[..., Any]) -> bool:
    try:
        returned = typing.get_type_hints(endpoint).get("return")
    except (NameError, TypeError):
        return False
    return isinstance(returned, type) and issubclass(returned, Response)


def _is_sequence(annotation: Any) -> bool:
    return any(
        typing.get_origin(part) in (list, tuple, set, frozenset) for part in (annotation, *typing.get_args(annotation))
    )


def _bindable(dependant: Dependant) -> bool:
    return not (
        dependant.path_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.background_tasks_param_name
        or dependant.response_param_name
        or dependant.websocket_param_name
        or dependant.http_connection_param_name
        or dependant.security_scopes_param_name
    )


def _is_body_reader(dependency: Dependant) -> bool:
    """A dependency that takes the request only and gives the body (web.io's readers)."""
    return (
        dependency.request_param_name is not None
        and not dependency.dependencies
        and _bindable(dependency)
        and not dependency.query_params
        and not dependency.body_params
    )
