"""One MCP tool per API operation, its input schema built from the OpenAPI document.

Binary inputs are given as a local file path (`<name>_path`; one over the synchronous limit is uploaded by the
SDK, streamed from disk), as Base64 (`<name>_base64`) or as the id of an upload (`<name>_upload`, upl_...,
made with `uploads_create`); binary outputs are returned as MCP image content when they are images, and are
written to `output_path` when it is given, else returned as a Base64 blob resource.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from fileapi_client._core import Operation
from fileapi_client._generated import OPERATIONS

OUTPUT_PATH = "output_path"
# The document's `?upload=` parameter: a tool takes it per file input instead (`<name>_upload(s)`).
UPLOAD_PARAMETER = "upload"
UPLOAD_ID = {"type": "string", "pattern": "^upl_[a-z0-9]{26}$"}


@dataclass(frozen=True)
class ToolCall:
    """What a tool call asks of the SDK: the operation's arguments, or its options and the uploads to run it
    over (`uploads` not empty: the call is an operation over uploads already made)."""

    arguments: dict[str, Any]
    uploads: list[str]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    operation: Operation
    read_only: bool
    answer_headers: tuple[str, ...] = ()  # what the conversion says in headers (X-Quality-Score), in `_meta`


def load_spec() -> dict[str, Any]:
    """The OpenAPI document the SDK was generated from (shipped inside fileapi_client)."""
    text = resources.files("fileapi_client").joinpath("openapi.json").read_text(encoding="utf-8")
    spec: dict[str, Any] = json.loads(text)
    return spec


def _resolve(spec: dict[str, Any], schema: Any) -> Any:
    """`schema` with every $ref replaced by its component (the tools' schemas stand alone)."""
    if isinstance(schema, list):
        return [_resolve(spec, item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        return _resolve(spec, {**target, **rest})
    return {key: _resolve(spec, value) for key, value in schema.items() if key != "title"}


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """`X | null` as X: a tool leaves an argument out rather than passing null."""
    options = schema.get("anyOf")
    if options:
        kept = [option for option in options if option.get("type") != "null"]
        if len(kept) == 1:
            return {**kept[0], **{key: value for key, value in schema.items() if key != "anyOf"}}
    return schema


def _file_properties(name: str, description: str, *, many: bool, uploadable: bool) -> dict[str, Any]:
    """The ways to give the file input `name`: a path, Base64, or (`uploadable`: the file is the request's
    body or one of its form's files) an upload id."""
    upload = "The id of an upload of it (uploads_create, then its presigned POST), for a large file"
    if many:
        return {
            **(
                {
                    f"{name}_uploads": {
                        "type": "array",
                        "items": UPLOAD_ID,
                        "description": f"{description} {upload}: one id per file, in order (instead of {name}_paths).",
                    }
                }
                if uploadable
                else {}
            ),
            f"{name}_paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": f"{description} Local paths.",
            },
            f"{name}_base64": {
                "type": "array",
                "items": {"type": "string", "contentEncoding": "base64"},
                "description": f"{description} Base64 contents (instead of {name}_paths).",
            },
        }
    return {
        **(
            {f"{name}_upload": {**UPLOAD_ID, "description": f"{description} {upload} (instead of {name}_path)."}}
            if uploadable
            else {}
        ),
        f"{name}_path": {
            "type": "string",
            "description": f"{description} A local file path (a large file is uploaded, streamed from disk).",
        },
        f"{name}_base64": {
            "type": "string",
            "contentEncoding": "base64",
            "description": f"{description} Its contents in Base64 (instead of {name}_path).",
        },
    }


def _body_properties(spec: dict[str, Any], operation: Operation, request_body: dict[str, Any]) -> dict[str, Any]:
    content = request_body["content"]
    properties: dict[str, Any] = {}
    if operation.body == "file":
        description = request_body.get("description", "The input file.")
        properties.update(_file_properties("file", description, many=False, uploadable=True))
    elif operation.body == "text":
        properties["text"] = {"type": "string", "description": request_body.get("description", "The input text.")}
    elif operation.body == "json":
        properties["data"] = {"description": "The JSON document: any JSON value, or its text as a string."}
    else:
        media = "multipart/form-data" if operation.body == "multipart" else "application/json"
        schema = _resolve(spec, content[media]["schema"])
        for name, value in schema["properties"].items():
            if name in operation.files:
                many = value.get("type") == "array"
                description = value.get("description", f"The {name}.")
                uploadable = operation.body == "multipart"
                properties.update(_file_properties(name, description, many=many, uploadable=uploadable))
            else:
                properties[name] = _plain(value)
    return properties


def _required(spec: dict[str, Any], operation: Operation, entry: dict[str, Any]) -> list[str]:
    required = [
        item["name"] for item in entry.get("parameters", []) if item.get("required") and item["in"] in ("query", "path")
    ]
    if operation.body == "text":
        required.append("text")
    elif operation.body == "json":
        required.append("data")
    elif operation.body in ("fields", "multipart"):
        media = "multipart/form-data" if operation.body == "multipart" else "application/json"
        schema = _resolve(spec, entry["requestBody"]["content"][media]["schema"])
        required += [name for name in schema.get("required", []) if name not in operation.files]
    return required


# The pipelines operation is the tool run_pipeline: its inputs may also be local paths, and it waits for the end.
PIPELINE_OPERATION = "pipelines_create"
RUN_PIPELINE = "run_pipeline"
PIPELINE_INPUT = {
    "type": "object",
    "description": "One input: exactly one of path (a local file, uploaded first), upload (an upload id) and url "
    "(a public https URL the service fetches).",
    "properties": {
        "path": {"type": "string", "description": "A local file path."},
        "upload": UPLOAD_ID,
        "url": {"type": "string", "description": "A public https URL."},
    },
    "additionalProperties": False,
}


# Headers every metered answer carries: `_meta` names them on its own (quotaRemaining, requestId, ...).
PROTOCOL_HEADERS = frozenset({"x-quota-remaining", "x-request-id"})


def _answer_headers(entry: dict[str, Any]) -> tuple[str, ...]:
    """The X- headers the operation's successful answers document, other than the protocol's own."""
    names = {
        name
        for code, response in entry.get("responses", {}).items()
        if code.startswith("2")
        for name in response.get("headers", {})
        if name.lower().startswith("x-") and name.lower() not in PROTOCOL_HEADERS
    }
    return tuple(sorted(names))


def build_tools(spec: dict[str, Any]) -> dict[str, ToolSpec]:
    """A ToolSpec for every operation of the SDK, described by the document (the pipelines operation as
    run_pipeline, taking local paths as inputs too)."""
    entries = {
        operation["operationId"]: operation for methods in spec["paths"].values() for operation in methods.values()
    }
    tools: dict[str, ToolSpec] = {}
    for operation in OPERATIONS.values():
        entry = entries[operation.id]
        properties: dict[str, Any] = {}
        if "requestBody" in entry:
            properties.update(_body_properties(spec, operation, entry["requestBody"]))
        for parameter in entry.get("parameters", []):
            if parameter["in"] == "path" or (parameter["in"] == "query" and parameter["name"] != UPLOAD_PARAMETER):
                schema = _plain(_resolve(spec, parameter["schema"]))
                properties[parameter["name"]] = {**schema, "description": parameter.get("description", "")}
        if operation.result in ("bytes", "media"):
            properties[OUTPUT_PATH] = {
                "type": "string",
                "description": "Write the output file here (images are also returned as image content).",
            }
        files = (
            " Give each input file as a local path (*_path), as Base64 (*_base64) or as an upload id (*_upload)."
            if operation.files
            else ""
        )
        description = f"{entry.get('summary', '')}. {entry.get('description', '')}{files}".strip()
        tools[operation.id] = ToolSpec(
            name=operation.id,
            title=entry.get("summary", operation.id),
            description=description,
            input_schema={
                "type": "object",
                "properties": properties,
                "required": _required(spec, operation, entry),
                "additionalProperties": False,
            },
            operation=operation,
            read_only=not operation.id.startswith("keys_"),
            answer_headers=_answer_headers(entry),
        )
    pipeline = tools.pop(PIPELINE_OPERATION, None)
    if pipeline is not None:
        schema = {**pipeline.input_schema, "properties": dict(pipeline.input_schema["properties"])}
        schema["properties"]["inputs"] = {**schema["properties"]["inputs"], "items": PIPELINE_INPUT}
        description = pipeline.description + " Inputs may be local paths ({path}); the tool waits for the end."
        tools[RUN_PIPELINE] = ToolSpec(RUN_PIPELINE, pipeline.title, description, schema, pipeline.operation, False)
    return tools


def _decode_base64(value: Any, name: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{name}: a Base64 string is expected")
    try:
        return base64.b64decode(value, validate=False)
    except ValueError as exc:
        raise ValueError(f"{name}: not valid Base64 ({exc})") from None


def _one_of(arguments: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    """The one of `keys` given in `arguments` (popped, with its value). :raises ValueError: none or several."""
    given = [key for key in keys if arguments.get(key) is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of {', '.join(keys)}")
    return given[0], arguments.pop(given[0])


def sdk_arguments(tool: ToolSpec, arguments: dict[str, Any]) -> ToolCall:
    """The SDK call a tool call asks for: files read from paths or decoded from Base64, or the uploads named."""
    operation = tool.operation
    unknown = set(arguments) - set(tool.input_schema["properties"])
    if unknown:
        raise ValueError(f"unknown argument(s): {', '.join(sorted(unknown))}")
    missing = [name for name in tool.input_schema["required"] if arguments.get(name) is None]
    if missing:
        raise ValueError(f"missing argument(s): {', '.join(missing)}")
    result = {name: value for name, value in arguments.items() if name != OUTPUT_PATH}
    uploads: list[str] = []
    for name in operation.files:
        many = f"{name}_paths" in tool.input_schema["properties"]
        keys = (f"{name}_paths", f"{name}_base64", f"{name}_uploads") if many else (
            f"{name}_path", f"{name}_base64", f"{name}_upload"
        )  # fmt: skip
        key, value = _one_of(result, tuple(key for key in keys if key in tool.input_schema["properties"]))
        if many and (not isinstance(value, list) or not value):
            raise ValueError(f"{key}: a non-empty array is expected")
        if key == keys[2]:
            uploads += list(value) if many else [value]
        elif key == keys[1]:
            result[name] = [_decode_base64(item, key) for item in value] if many else _decode_base64(value, key)
        else:
            result[name] = list(value) if many else value
    return ToolCall(result, uploads)
