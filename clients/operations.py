"""The API's operations as the clients see them, read from the OpenAPI document.

One model serves the three clients: `generate.py` writes the Python SDK's and the Node SDK's typed
methods from it, and the parity test compares all three with it. Operations marked `x-internal`
(the payment provider's webhook) are not client operations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "shared" / "fileapi" / "openapi.json"

BodyKind = Literal["none", "file", "text", "json", "fields", "multipart"]
# "media": bytes or text by the response's media type (qr/generate: a PNG, or SVG text, by its `format`);
# "empty": 204 No Content (a deletion).
ResultKind = Literal["json", "text", "bytes", "media", "redirect", "empty"]
# The query parameter that names uploads (`?upload=upl_...`): the SDKs send it themselves, for a file over the
# synchronous limit or through submit_operation, so it is not an argument of the generated methods.
UPLOAD_PARAMETER = "upload"
# The request body's parameter, by body kind: raw bytes, text, or a JSON document.
BODY_PARAMETER = {"file": "file", "text": "text", "json": "data"}


@dataclass(frozen=True)
class Parameter:
    name: str
    schema: dict[str, Any]
    required: bool
    description: str
    where: Literal["query", "body", "path"]
    file: bool = False  # a file input sent as bytes (multipart) or base64 (JSON)


@dataclass(frozen=True)
class Operation:
    id: str
    method: str
    path: str
    summary: str
    description: str
    auth: bool
    body: BodyKind
    content_type: str | None
    parameters: list[Parameter] = field(default_factory=list)
    result: ResultKind = "json"
    result_schema: dict[str, Any] = field(default_factory=dict)
    # For a "media" result: what each value of the `format` parameter gives ("text" or "bytes"), default first.
    result_by_format: dict[str, Literal["text", "bytes"]] = field(default_factory=dict)
    # Keys of the JSON answer that hold dots (a favicon set's file names): one step of an operation's field path.
    dotted_keys: tuple[str, ...] = ()

    @property
    def camel(self) -> str:
        head, *rest = self.id.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)

    @property
    def pascal(self) -> str:
        return self.camel[:1].upper() + self.camel[1:]


def load_spec(path: Path = SPEC_PATH) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return spec


def operations(spec: dict[str, Any]) -> list[Operation]:
    """Every client operation of `spec`, in the document's order."""
    found = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            if not operation.get("x-internal"):
                found.append(_operation(spec, path, method, operation))
    return found


def error_codes(spec: dict[str, Any]) -> list[str]:
    codes: list[str] = spec["components"]["schemas"]["ApiErrorCode"]["enum"]
    return codes


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with a top-level $ref followed (its own description kept)."""
    while "$ref" in schema:
        target = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        extra = {key: value for key, value in schema.items() if key != "$ref"}
        schema = {**target, **extra}
    return schema


def without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """`X | null` as X (the clients leave an unset parameter out instead of sending null)."""
    options = schema.get("anyOf")
    if options:
        kept = [option for option in options if option.get("type") != "null"]
        if len(kept) == 1:
            rest = {key: value for key, value in schema.items() if key != "anyOf"}
            return {**kept[0], **rest}
    return schema


def _operation(spec: dict[str, Any], path: str, method: str, operation: dict[str, Any]) -> Operation:
    parameters = [
        Parameter(
            name=item["name"],
            schema=without_null(item["schema"]),
            required=bool(item.get("required")),
            description=item.get("description", ""),
            where=item["in"],
        )
        for item in operation.get("parameters", [])
        if item["in"] == "path" or (item["in"] == "query" and item["name"] != UPLOAD_PARAMETER)
    ]
    parameters.sort(key=lambda parameter: parameter.where != "path")  # path parameters first
    body, content_type, body_parameters = _body(spec, operation.get("requestBody"))
    result, result_schema = _result(operation["responses"])
    by_format = _result_by_format(operation["responses"], body_parameters + parameters) if result == "media" else {}
    return Operation(
        id=operation["operationId"],
        method=method.upper(),
        path=path,
        summary=operation.get("summary", ""),
        description=operation.get("description", ""),
        auth=bool(operation.get("security")),
        body=body,
        content_type=content_type,
        parameters=body_parameters + parameters,
        result=result,
        result_schema=result_schema,
        result_by_format=by_format,
        dotted_keys=tuple(sorted(_dotted_keys(spec, result_schema))),
    )


def _dotted_keys(spec: dict[str, Any], schema: Any, seen: frozenset[str] = frozenset()) -> set[str]:
    """The property names holding a dot anywhere in `schema` ($refs followed once each)."""
    if isinstance(schema, list):
        return set().union(*(_dotted_keys(spec, item, seen) for item in schema))
    if not isinstance(schema, dict):
        return set()
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return set() if name in seen else _dotted_keys(spec, spec["components"]["schemas"][name], seen | {name})
    found = {key for key in schema.get("properties", {}) if "." in key}
    return found.union(*(_dotted_keys(spec, value, seen) for value in schema.values()))


def _is_file(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" and schema.get("format") in ("binary", "byte")


def _is_files(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "array" and _is_file(schema.get("items", {}))


def _body(spec: dict[str, Any], request_body: dict[str, Any] | None) -> tuple[BodyKind, str | None, list[Parameter]]:
    if not request_body:
        return "none", None, []
    content: dict[str, Any] = request_body["content"]
    multipart = content.get("multipart/form-data")
    # The first media type is the one the clients send: a form listed after raw media types is the same
    # input as a form file (curl -F), which the clients do not send.
    if multipart and next(iter(content)) == "multipart/form-data":
        properties = resolve(spec, multipart["schema"]).get("properties", {})
        if all(_is_file(value) or _is_files(value) for value in properties.values()):
            return "multipart", "multipart/form-data", _fields(spec, multipart["schema"])
    json_body = content.get("application/json")
    if json_body:
        schema = resolve(spec, json_body["schema"])
        if "properties" in schema:
            return "fields", "application/json", _fields(spec, schema)
        description = (
            "The JSON document: text or bytes are sent as they are (the numbers keep their text); "
            "other values are serialized."
        )
        return "json", "application/json", [Parameter("data", {}, True, description, "body")]
    media_type = "application/octet-stream" if "application/octet-stream" in content else next(iter(content))
    schema = content[next(iter(content))]["schema"]
    description = request_body.get("description", "")
    if schema.get("format") == "binary":
        return "file", media_type, [Parameter("file", schema, True, description, "body", file=True)]
    return "text", next(iter(content)), [Parameter("text", schema, True, description, "body")]


def _fields(spec: dict[str, Any], schema: dict[str, Any]) -> list[Parameter]:
    schema = resolve(spec, schema)
    required = set(schema.get("required", []))
    return [
        Parameter(
            name=name,
            schema=without_null(value),
            required=name in required,
            description=value.get("description", ""),
            where="body",
            file=_is_file(value) or _is_files(value),
        )
        for name, value in schema["properties"].items()
    ]


def _result(responses: dict[str, Any]) -> tuple[ResultKind, dict[str, Any]]:
    if "204" in responses:
        return "empty", {"type": "null"}
    success = next((responses[status] for status in ("200", "201") if status in responses), None)
    if success is None:
        return "redirect", {"type": "string"}
    content: dict[str, Any] = success.get("content", {})
    if list(content) == ["application/json"]:
        schema = content["application/json"].get("schema", {})
        # Any JSON (json-format, json-minify): the text is the result, its formatting the point.
        return ("text", {"type": "string"}) if schema == {} else ("json", schema)
    # application/octet-stream after the real media types is there for generators that know no other type.
    named = {media: entry for media, entry in content.items() if media != "application/octet-stream"} or content
    schemas = [entry.get("schema", {}) for entry in named.values()]
    textual = [schema.get("type") == "string" and "format" not in schema for schema in schemas]
    if all(textual):
        return "text", {"type": "string"}
    if any(textual):
        return "media", {"type": "string"}
    return "bytes", {"type": "string", "format": "binary"}


def _result_by_format(responses: dict[str, Any], parameters: list[Parameter]) -> dict[str, Literal["text", "bytes"]]:
    """For each value of the operation's `format` parameter, the kind of the media type it names (`svg` is
    image/svg+xml): its default first."""
    content: dict[str, Any] = responses["200"]["content"]
    chosen = next((p for p in parameters if p.name == "format" and "enum" in p.schema), None)
    if chosen is None:
        raise ValueError("a response of text or bytes by media type needs an enumerated `format` parameter")
    values: list[str] = list(chosen.schema["enum"])
    default = chosen.schema.get("default", values[0])
    by_format: dict[str, Literal["text", "bytes"]] = {}
    for value in [default, *(v for v in values if v != default)]:
        media = next(media for media in content if media.split("/")[1].startswith(value))
        binary = content[media].get("schema", {}).get("format") == "binary"
        by_format[value] = "bytes" if binary else "text"
    return by_format
