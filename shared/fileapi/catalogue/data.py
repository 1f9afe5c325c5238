"""The data conversions (the Data function): Base64, percent-encoding, JSON formatting, CSV <-> JSON.

All run in the request's process: linear work on a body the API bounds (fileapi.web.conversions)."""

from __future__ import annotations

from fileapi.catalogue.converters import Named
from fileapi.catalogue.declaration import ANY, Conversion, Reads, Takes, gives_file, gives_json_text, gives_text
from fileapi.models.data import (
    Base64EncodeOptions,
    CsvToJsonOptions,
    DataCsvToJsonResult,
    JsonFormatOptions,
    JsonToCsvOptions,
    UrlDecodeOptions,
    UrlEncodeOptions,
)

FAMILY = "data"
TAGS = ("Data",)
TEXT = ("text/plain",)
JSON_TYPE = "application/json"
JSON_DOCUMENT = Takes(Reads.FILE, JSON_TYPE, doc="A JSON document.", example={"b": 1, "a": [True, None, 1.5]})

CONVERSIONS = (
    Conversion(
        path="/v1/data/base64-encode",
        family=FAMILY,
        summary="Encode bytes as Base64",
        description="Any bytes in; Base64 text (RFC 4648, no line breaks) out.",
        takes=Takes(Reads.FILE, ANY, doc="The bytes to encode (any Content-Type)."),
        options=Base64EncodeOptions,
        gives=gives_text("text/plain", "Base64 text", "aGk=", plain_alphabet=True),
        convert=Named("fileapi.convert.encoding", "encode_base64"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/base64-decode",
        family=FAMILY,
        summary="Decode Base64 to bytes",
        description="Base64 text in the standard or the URL-safe alphabet; white space and missing `=` padding are "
        "tolerated. Mixed alphabets, stray characters or an impossible length give 400 invalid_input.",
        takes=Takes(Reads.TEXT, "text/plain", doc="Base64 text.", text_types=TEXT, example="aGk="),
        gives=gives_file((), "The decoded bytes"),
        convert=Named("fileapi.convert.encoding", "decode_base64"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/url-encode",
        family=FAMILY,
        summary="Percent-encode text",
        description="UTF-8 text in; RFC 3986 percent-encoding out: every character but `A-Z a-z 0-9 - . _ ~` is "
        "encoded as its UTF-8 bytes. With `form=true` a space becomes `+` (application/x-www-form-urlencoded).",
        takes=Takes(Reads.TEXT, "text/plain", doc="UTF-8 text.", text_types=TEXT, example="a b"),
        options=UrlEncodeOptions,
        gives=gives_text("text/plain", "Percent-encoded text", "a%20b", plain_alphabet=True),
        convert=Named("fileapi.convert.encoding", "encode_url"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/url-decode",
        family=FAMILY,
        summary="Decode percent-encoded text",
        description="Percent-encoded text in; UTF-8 text out. A `%` not followed by two hex digits, or bytes that do "
        "not decode to UTF-8, give 400 invalid_input. `+` stays `+` unless `form=true`.",
        takes=Takes(Reads.TEXT, "text/plain", doc="Percent-encoded text.", text_types=TEXT, example="a%20b"),
        options=UrlDecodeOptions,
        gives=gives_text("text/plain", "Decoded text", "a b"),
        convert=Named("fileapi.convert.encoding", "decode_url"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/json-format",
        family=FAMILY,
        summary="Pretty-print JSON",
        description="Strict JSON (RFC 8259, UTF-8) in; the same document indented (2 spaces by default), ending with "
        "a newline. Key order, duplicate keys, Unicode (written as UTF-8) and the text of numbers are preserved.",
        takes=JSON_DOCUMENT,
        options=JsonFormatOptions,
        gives=gives_text(JSON_TYPE, "Indented JSON", {"a": [1, 2]}, schema={}),
        convert=Named("fileapi.convert.json_text", "format_json"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/json-minify",
        family=FAMILY,
        summary="Minify JSON",
        description="Strict JSON in; the same document with all insignificant white space removed.",
        takes=JSON_DOCUMENT,
        gives=gives_text(JSON_TYPE, "Minified JSON", {"a": [1, 2]}, schema={}),
        convert=Named("fileapi.convert.json_text", "minify_json"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/csv-to-json",
        family=FAMILY,
        summary="Convert CSV to a JSON array",
        description="UTF-8 CSV (RFC 4180; BOM, CRLF or LF; quoted fields with delimiters, quotes and line breaks) "
        "in; a compact JSON array out. With a header row (default) each row is an object of strings keyed by the "
        'header (empty names become `columnN`, repeats get `_2`, `_3`...; short rows get `""` for the missing '
        "fields; a row longer than the header is 400). `header=false` gives arrays of strings. The delimiter is "
        "detected among `,` `;` TAB `|` unless given. Blank lines are skipped.",
        takes=Takes(
            Reads.TEXT, "text/csv", doc="CSV text.", text_types=("text/csv", "text/plain"), example="a,b\r\n1,2\r\n"
        ),
        options=CsvToJsonOptions,
        gives=gives_json_text(DataCsvToJsonResult, "JSON array"),
        convert=Named("fileapi.convert.csv_json", "csv_to_json"),
        isolated=False,
        tags=TAGS,
    ),
    Conversion(
        path="/v1/data/json-to-csv",
        family=FAMILY,
        summary="Convert a JSON array of objects to CSV",
        description="A JSON array of objects in; RFC 4180 CSV out (CRLF line ends). Columns are the union of the keys "
        "in first-seen order; null and missing keys give empty cells; numbers are written as in the input, booleans "
        "as true/false, nested objects and arrays as JSON text. By default, string cells starting with `=`, `+`, "
        "`-`, `@`, TAB or CR get a leading `'` so that spreadsheets do not run them as formulas "
        "(`escapeFormulas=false` turns this off). Anything but an array of objects is 400.",
        takes=Takes(
            Reads.FILE,
            JSON_TYPE,
            doc="A JSON array of objects.",
            schema={"type": "array", "items": {"type": "object", "additionalProperties": True}},
            example=[{"a": 1, "b": "x"}, {"a": 2, "c": True}],
        ),
        options=JsonToCsvOptions,
        gives=gives_text("text/csv", "CSV text", "a,b\r\n1,2\r\n"),
        convert=Named("fileapi.convert.csv_json", "json_to_csv"),
        isolated=False,
        tags=TAGS,
    ),
)
