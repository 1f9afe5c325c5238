"""A family's synchronous routes, made from its declarations in the catalogue (fileapi.catalogue).

Each conversion becomes one metered POST route (fileapi.web.metering.MeteredRoute: admit, bind, convert in a
worker or in process, settle). Its endpoint is made here with the signature the binder and FastAPI read: the
body (raw bytes, text, a JSON model, or the request for the bodies read here: merge's files, fill-form's form),
then the options model as query parameters. Its answer is the converter's result as the declaration gives it
(`answer`). The document comes from the declaration too (fileapi.web.routes.Routes).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from fileapi.catalogue.declaration import Conversion, Reads, Shape, text_bytes
from fileapi.catalogue.outcome import inline_files
from fileapi.convert.json_written import dumps
from fileapi.web.binding import options_arguments
from fileapi.web.conversions import in_process, isolated
from fileapi.web.docs import ISOLATED_STATUSES, METERED_STATUSES, json_body, model_body, raw_body
from fileapi.web.io import RawBody, TextBody
from fileapi.web.limits import PlainText
from fileapi.web.metering import CONVERSION, MeteredRoute, metered
from fileapi.web.routes import Routes, answers_bytes, answers_json, answers_text, json_response

Endpoint = Callable[..., Awaitable[Response]]


def family_router(conversions: tuple[Conversion, ...]) -> APIRouter:
    """A router with one metered route per conversion, in the order declared."""
    router = APIRouter(dependencies=[Depends(metered)])
    routes = Routes(router, served_by=MeteredRoute)
    for conversion in conversions:
        routes.post(
            conversion.path,
            conversion.summary,
            _answer_docs(conversion),
            body=_body_docs(conversion),
            statuses=ISOLATED_STATUSES if conversion.isolated else METERED_STATUSES,
            description=conversion.description,
            uploads=conversion.takes.most,
            tags=list(conversion.tags),
        )(endpoint(conversion))
    return router


def answer(conversion: Conversion, result: Any) -> Response:
    """The HTTP answer of the converter's `result`, as the conversion gives it."""
    gives = conversion.gives
    if gives.shape is Shape.TEXT and conversion.unpack is None:  # the text alone (what `outcome` would hold)
        text = text_bytes(result)
        return PlainText(text) if gives.plain_alphabet else Response(text, media_type=gives.media_types[0])
    if gives.shape is Shape.JSON:
        assert gives.model is not None
        details = conversion.outcome(result).details
        if gives.plain:
            return Response(dumps(details), media_type="application/json")
        return json_response(gives.model.model_validate(details))
    outcome = conversion.outcome(result)
    if gives.shape is Shape.JSON_FILES:
        assert gives.model is not None
        return json_response(gives.model.model_validate(inline_files(outcome)))
    made = outcome.files[0]
    if gives.plain_alphabet:
        return PlainText(made.read())
    return Response(made.read(), media_type=made.media_type, headers=dict(outcome.headers) or None)


def endpoint(conversion: Conversion) -> Endpoint:
    """The route's endpoint: a coroutine function whose signature says what it binds (fileapi.web.binding)."""
    run = isolated if conversion.isolated else in_process
    reads = conversion.takes.reads
    options_model = conversion.options

    async def convert_file(body: bytes, options: Any = None) -> Response:
        given = options_arguments(options) if options is not None else {}
        return answer(conversion, await run(conversion.convert, body, **given))

    async def convert_options(options: Any) -> Response:
        return answer(conversion, await run(conversion.convert, **options.model_dump()))

    async def convert_request(request: Request, options: Any = None) -> Response:
        from fileapi.web.pdf_bodies import read_form_fill, read_many

        if reads is Reads.FILES:
            given = options_arguments(options) if options is not None else {}
            return answer(conversion, await run(conversion.convert, await read_many(request, conversion), **given))
        document, options = await read_form_fill(request)
        return answer(conversion, await run(conversion.convert, document, **options.model_dump()))

    parameters: list[inspect.Parameter] = []
    if reads is Reads.JSON:
        assert options_model is not None, f"{conversion.path}: a JSON conversion's options are its body"
        function: Endpoint = convert_options
        parameters.append(_parameter("options", options_model))
    elif reads in (Reads.FILES, Reads.FORM_FILL):
        function = convert_request
        parameters.append(_parameter("request", Request))
        if options_model is not None and reads is Reads.FILES:
            parameters.append(_parameter("options", Annotated[options_model, Query()]))
    else:
        function = convert_file
        parameters.append(_parameter("body", TextBody if reads is Reads.TEXT else RawBody))
        if options_model is not None:
            parameters.append(_parameter("options", Annotated[options_model, Query()]))
    # Each call makes new functions: the route's own, named after the conversion (traces, FastAPI's route name).
    function.__name__ = function.__qualname__ = conversion.name.replace("/", "_").replace("-", "_")
    function.__doc__ = conversion.description
    function.__signature__ = inspect.Signature(parameters, return_annotation=Response)  # type: ignore[attr-defined]
    function.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters} | {"return": Response}
    setattr(function, CONVERSION, conversion)  # the route runs it as an operation too (fileapi.web.operations)
    return function


def _parameter(name: str, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation)


def _body_docs(conversion: Conversion) -> dict[str, Any] | None:
    takes = conversion.takes
    if takes.reads is Reads.JSON:
        return None  # FastAPI documents the options model as the JSON body
    if takes.reads is Reads.FILES:
        assert takes.model is not None
        return model_body("multipart/form-data", takes.model)
    if takes.reads is Reads.FORM_FILL:
        assert takes.model is not None
        return model_body("application/json", takes.model)
    if takes.accepts == "application/json":  # a JSON document read as it is, so its text is kept exactly
        schema = dict(takes.schema) if takes.schema is not None else None
        return json_body(takes.doc, schema=schema, example=takes.example)
    return raw_body(takes.doc, text_types=takes.text_types, example=takes.example)


def _answer_docs(conversion: Conversion) -> dict[str, Any]:
    gives = conversion.gives
    statuses = ISOLATED_STATUSES if conversion.isolated else METERED_STATUSES
    if gives.model is not None:  # JSON, JSON_FILES, or JSON text the converter writes
        return answers_json(gives.model, gives.doc, statuses=statuses)
    if gives.shape is Shape.TEXT:
        schema = dict(gives.schema) if gives.schema is not None else None
        return answers_text(gives.media_types[0], gives.doc, gives.example, schema=schema, statuses=statuses)
    return answers_bytes(gives.media_types, gives.doc, headers=dict(gives.headers) or None, statuses=statuses)
