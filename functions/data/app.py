"""Data function: /v1/data/* (Base64, percent-encoding, JSON formatting, CSV <-> JSON)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from fileapi.convert.csv_json import csv_to_json, json_to_csv
from fileapi.convert.encoding import decode_base64, decode_url, encode_base64, encode_url
from fileapi.convert.json_text import MAX_INDENT, format_json, minify_json
from fileapi.models.data import Base64EncodeOptions, CsvToJsonOptions, DataCsvToJsonResult, JsonToCsvOptions
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.conversions import in_process
from fileapi.web.docs import json_body, raw_body
from fileapi.web.io import RawBody, TextBody
from fileapi.web.limits import PlainText
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import Routes, answers_bytes, answers_json, answers_text

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["Data"])
data = Routes(router)
TEXT = ("text/plain",)
JSON_DOCUMENT = json_body("A JSON document.", example={"b": 1, "a": [True, None, 1.5]})


@data.post(
    "/v1/data/base64-encode",
    "Encode bytes as Base64",
    answers_text("text/plain", "Base64 text", "aGk="),
    body=raw_body("The bytes to encode (any Content-Type)."),
)
async def base64_encode(body: RawBody, options: Annotated[Base64EncodeOptions, Query()]) -> Response:
    """Any bytes in; Base64 text (RFC 4648, no line breaks) out."""
    return PlainText(await in_process(encode_base64, body, **options.model_dump()))


@data.post(
    "/v1/data/base64-decode",
    "Decode Base64 to bytes",
    answers_bytes((), "The decoded bytes"),
    body=raw_body("Base64 text.", text_types=TEXT, example="aGk="),
)
async def base64_decode(body: TextBody) -> Response:
    """Base64 text in the standard or the URL-safe alphabet; white space and missing `=` padding are tolerated.
    Mixed alphabets, stray characters or an impossible length give 400 invalid_input."""
    return Response(await in_process(decode_base64, body), media_type="application/octet-stream")


@data.post(
    "/v1/data/url-encode",
    "Percent-encode text",
    answers_text("text/plain", "Percent-encoded text", "a%20b"),
    body=raw_body("UTF-8 text.", text_types=TEXT, example="a b"),
)
async def url_encode(
    body: TextBody, form: Annotated[bool, Query(description="Encode a space as `+`.")] = False
) -> Response:
    """UTF-8 text in; RFC 3986 percent-encoding out: every character but `A-Z a-z 0-9 - . _ ~` is encoded as its
    UTF-8 bytes. With `form=true` a space becomes `+` (application/x-www-form-urlencoded)."""
    return PlainText(await in_process(encode_url, body, form=form))


@data.post(
    "/v1/data/url-decode",
    "Decode percent-encoded text",
    answers_text("text/plain", "Decoded text", "a b"),
    body=raw_body("Percent-encoded text.", text_types=TEXT, example="a%20b"),
)
async def url_decode(
    body: TextBody, form: Annotated[bool, Query(description="Decode `+` as a space.")] = False
) -> Response:
    """Percent-encoded text in; UTF-8 text out. A `%` not followed by two hex digits, or bytes that do not decode
    to UTF-8, give 400 invalid_input. `+` stays `+` unless `form=true`."""
    return Response(await in_process(decode_url, body, form=form), media_type="text/plain")


@data.post(
    "/v1/data/json-format",
    "Pretty-print JSON",
    answers_text("application/json", "Indented JSON", {"a": [1, 2]}, schema={}),
    body=JSON_DOCUMENT,
)
async def json_format(
    body: RawBody,
    indent: Annotated[int, Query(ge=1, le=MAX_INDENT, description="Spaces per nesting level.")] = 2,
) -> Response:
    """Strict JSON (RFC 8259, UTF-8) in; the same document indented (2 spaces by default), ending with a newline.
    Key order, duplicate keys, Unicode (written as UTF-8) and the text of numbers are preserved."""
    return Response(await in_process(format_json, body, indent=indent), media_type="application/json")


@data.post(
    "/v1/data/json-minify",
    "Minify JSON",
    answers_text("application/json", "Minified JSON", {"a": [1, 2]}, schema={}),
    body=JSON_DOCUMENT,
)
async def json_minify(body: RawBody) -> Response:
    """Strict JSON in; the same document with all insignificant white space removed."""
    return Response(await in_process(minify_json, body), media_type="application/json")


@data.post(
    "/v1/data/csv-to-json",
    "Convert CSV to a JSON array",
    answers_json(DataCsvToJsonResult, "JSON array"),
    body=raw_body("CSV text.", text_types=("text/csv", "text/plain"), example="a,b\r\n1,2\r\n"),
)
async def csv_to_json_route(body: TextBody, options: Annotated[CsvToJsonOptions, Query()]) -> Response:
    """UTF-8 CSV (RFC 4180; BOM, CRLF or LF; quoted fields with delimiters, quotes and line breaks) in; a compact
    JSON array out. With a header row (default) each row is an object of strings keyed by the header (empty
    names become `columnN`, repeats get `_2`, `_3`...; short rows get `""` for the missing fields; a row longer
    than the header is 400). `header=false` gives arrays of strings. The delimiter is detected among `,` `;` TAB
    `|` unless given. Blank lines are skipped."""
    return Response(await in_process(csv_to_json, body, **options.model_dump()), media_type="application/json")


@data.post(
    "/v1/data/json-to-csv",
    "Convert a JSON array of objects to CSV",
    answers_text("text/csv", "CSV text", "a,b\r\n1,2\r\n"),
    body=json_body(
        "A JSON array of objects.",
        schema={"type": "array", "items": {"type": "object", "additionalProperties": True}},
        example=[{"a": 1, "b": "x"}, {"a": 2, "c": True}],
    ),
)
async def json_to_csv_route(body: RawBody, options: Annotated[JsonToCsvOptions, Query()]) -> Response:
    """A JSON array of objects in; RFC 4180 CSV out (CRLF line ends). Columns are the union of the keys in
    first-seen order; null and missing keys give empty cells; numbers are written as in the input, booleans as
    true/false, nested objects and arrays as JSON text. By default, string cells starting with `=`, `+`, `-`,
    `@`, TAB or CR get a leading `'` so that spreadsheets do not run them as formulas (`escapeFormulas=false`
    turns this off). Anything but an array of objects is 400."""
    csv_bytes = await in_process(json_to_csv, body, **options.model_dump(exclude_none=True))  # no delimiter: a comma
    return Response(csv_bytes, media_type="text/csv")


app = create_app(router, title="Data")
handler = lambda_handler(app)
